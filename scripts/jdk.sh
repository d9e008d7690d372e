#!/usr/bin/env bash
# jdk.sh - finds installed JDKs by major version. Sourced by install-deps.sh; used by the Makefile:
#
#   scripts/jdk.sh home MIN [MAX]   prints the JDK home to use for MIN <= major <= MAX (no MAX: no
#                                   upper bound): JAVA_HOME if it is one, else the newest under
#                                   $FASTRMI_JVM_DIR (default /usr/lib/jvm). Exits 1, printing
#                                   nothing, if there is none.
JVM_DIR=${FASTRMI_JVM_DIR:-/usr/lib/jvm}

# Major version that the release file of the Java home $1 names, or nothing.
# JAVA_VERSION="17.0.15" -> 17, "25" -> 25, "1.8.0_402" -> 8.
release_major() {
	local dir=$1 line version major
	[[ -r $dir/release ]] || return 0
	line=$(grep -m1 '^JAVA_VERSION=' "$dir/release" 2>/dev/null) || return 0
	version=${line#JAVA_VERSION=}
	version=${version//\"/}
	major=${version%%[._+-]*}
	if [[ $major == 1 ]]; then
		major=${version#1.}
		major=${major%%[._+-]*}
	fi
	[[ $major =~ ^[0-9]+$ ]] && printf '%s\n' "$major"
	return 0
}

# Major version of the JDK at $1 (a release file and bin/javac: one that can build), or nothing.
jdk_major() {
	[[ -x $1/bin/javac ]] || return 0
	release_major "$1"
}

# Prints the JDK home for MIN <= major <= MAX: JAVA_HOME if it fits, else the newest under $JVM_DIR.
find_jdk() {
	local min=$1 max=${2:-} dir major best='' best_major=-1
	if [[ -n ${JAVA_HOME:-} ]]; then
		major=$(jdk_major "$JAVA_HOME")
		if [[ -n $major ]] && ((major >= min)) && { [[ -z $max ]] || ((major <= max)); }; then
			printf '%s\n' "$JAVA_HOME"
			return 0
		fi
	fi
	for dir in "$JVM_DIR"/*/; do
		dir=${dir%/}
		[[ -d $dir ]] || continue
		major=$(jdk_major "$dir")
		if [[ -z $major ]] || ((major < min)) || { [[ -n $max ]] && ((major > max)); }; then
			continue
		fi
		if ((major > best_major)); then
			best=$dir
			best_major=$major
		fi
	done
	[[ -n $best ]] && printf '%s\n' "$best"
	return 0
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -euo pipefail
	if [[ ${1:-} != home || -z ${2:-} ]]; then
		echo "usage: $0 home MIN [MAX]" >&2
		exit 2
	fi
	home=$(find_jdk "$2" "${3:-}")
	[[ -n $home ]] || exit 1
	printf '%s\n' "$home"
fi
