#!/bin/sh
# installcheck.sh BIN DATADIR: the installed attnview, run from outside the
# tree (/), finds the installed lessons and plays every step of each in
# batch mode (--lesson NAME --step N --print). A step past the end names the
# lesson's file, which proves it came from DATADIR, not the source tree.
# Run by `make installcheck` (and so by distcheck).
set -u
bin=$1
data=$2
out=${TMPDIR:-/tmp}/attnview-installcheck.$$
trap 'rm -f "$out" "$out.err" "$out.list"' EXIT
fail() {
	echo "installcheck: $*" >&2
	exit 1
}
cd / || fail "cannot cd /"
"$bin" --list-lessons >"$out.list" 2>&1 || fail "--list-lessons failed: $(cat "$out.list")"
for lesson in first-look qkv-walkthrough china-panda; do
	grep -q "^$lesson	" "$out.list" ||
		fail "--list-lessons does not list $lesson: $(cat "$out.list")"
	"$bin" --lesson "$lesson" --step 100000 --print weights >/dev/null 2>"$out.err"
	rc=$?
	test $rc -eq 2 || fail "$lesson --step 100000: exit $rc, not 2"
	grep -qF "$data/lessons/$lesson.json: --step 100000: the lesson has " "$out.err" ||
		fail "$lesson was not found in $data: $(cat "$out.err")"
	steps=$(sed -n 's/.* the lesson has \([0-9][0-9]*\) steps.*/\1/p' "$out.err")
	test -n "$steps" || fail "no step count in: $(cat "$out.err")"
	step=1
	while test "$step" -le "$steps"; do
		"$bin" --lesson "$lesson" --step "$step" --print weights >"$out" 2>"$out.err" ||
			fail "$lesson --step $step: $(cat "$out.err")"
		grep -q "shape=" "$out" || fail "$lesson --step $step printed no table"
		step=$((step + 1))
	done
	echo "installcheck: $lesson: $steps steps from $data/lessons/$lesson.json"
done
# the state of a step: china-panda's step 4 is the sentence of four words
"$bin" --lesson china-panda --step 4 --print scores >"$out" 2>&1 ||
	fail "china-panda --step 4: $(cat "$out")"
grep -q "shape=(4, 4)" "$out" || fail "china-panda --step 4: not its sentence: $(cat "$out")"
exit 0
