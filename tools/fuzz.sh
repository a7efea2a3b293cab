#!/bin/sh
# tools/fuzz.sh: builds the libFuzzer targets of tests/fuzz/ with clang
# (-fsanitize=fuzzer,address,undefined) and runs each for SECONDS seconds.
#
#   tools/fuzz.sh [SECONDS [TARGET...]]      (default: 60 seconds, every target)
#   make fuzz FUZZ_SECONDS=600               (the same from a configured build)
#
# Targets (tests/fuzz/fuzz_*.c):
#   sample     any bytes as a --sample file
#   weights    any bytes as a --weights file (or trace)
#   theme      any bytes as a --theme file
#   tokenizer  any bytes as a sentence
#   trace      the round trip: weights -> run -> --dump -> load -> run -> same dump
#   screen     bytes as keys (function keys and resizes among them) into the
#              screen, through the headless test harness (tests/ui_harness.h)
#   keyboard   bytes as a terminal sends them, read by av_keyboard_read
#              (UTF-8, Alt keys, escape sequences) through ncurses from a pipe
#   lesson     any bytes as a --lesson file
#   follow     any bytes as a classroom message from a leader (src/follow/wire.c)
#   safetensors  any bytes as a .safetensors file (src/model/safetensors.c)
#   model      a GPT-2 model's config.json and model.safetensors, loaded and
#              run a few tokens through (src/model/gpt2.c)
#   bpe        text for GPT-2's tokenizer, or a vocab.json + merges.txt pair
#
# The seed corpora are collected from the tree each run (samples/, themes/,
# tests/fixtures/, tests/bad/, lessons/, files under 64 KB; the screen and
# follow targets get tests/fuzz/screen-seeds/ and follow-seeds/, the
# keyboard keyboard-seeds/, the model model-seeds/) into
# $FUZZ_DIR/corpus/TARGET, which keeps what libFuzzer adds between runs. A crash leaves crash-* (the input) in
# $FUZZ_DIR/TARGET and the script exits 1; reproduce it with
#   $FUZZ_DIR/fuzz_TARGET $FUZZ_DIR/TARGET/crash-...
# $FUZZ_DIR is build-fuzz/ in the source tree unless set. Without clang it
# prints a line saying so and exits 0 (nothing is fuzzed). FUZZ_JOBS (1)
# targets run at once; FUZZ_NICE (10) is their nice level.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-sample weights theme tokenizer trace screen keyboard lesson follow safetensors model bpe}
out=${FUZZ_DIR:-$src/build-fuzz}
CC_FUZZ=${CC_FUZZ:-clang}

if ! command -v "$CC_FUZZ" >/dev/null 2>&1; then
	echo "fuzz: skipped: $CC_FUZZ is not installed (apt-get install clang)"
	exit 0
fi
case $seconds in
''|*[!0-9]*) echo "fuzz: SECONDS must be a whole number, not '$seconds'" >&2; exit 2 ;;
esac

# The libraries, instrumented (fuzzer-no-link: coverage without a main),
# through the project's own build; then one program per target.
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
flags="-g -O1 -fno-omit-frame-pointer $san"
mkdir -p "$out"
if [ ! -f "$out/config.status" ]; then
	[ -x "$src/configure" ] || (cd "$src" && autoreconf -fi)
	# the reference matrix product: the targets fuzz parsers, and need no BLAS to link
	(cd "$out" && "$src/configure" -q --without-blas CC="$CC_FUZZ" \
		CFLAGS="$flags -fsanitize=fuzzer-no-link")
fi
jobs=$(nproc 2>/dev/null || echo 2)
(cd "$out" && make -j"$jobs" src/engine/libattnengine.a src/export/libattnexport.a \
	src/lesson/libattnlesson.a src/follow/libattnfollow.a src/ui/libattnui.a \
	src/model/libattnmodel.a >/dev/null)
# in link order: a library before those it uses (the screen uses the model)
libs="$out/src/ui/libattnui.a $out/src/lesson/libattnlesson.a $out/src/follow/libattnfollow.a"
libs="$libs $out/src/model/libattnmodel.a"
libs="$libs $out/src/export/libattnexport.a $out/src/engine/libattnengine.a"
syslibs="$(pkg-config --libs libcjson ncursesw) -lm"
syscflags=$(pkg-config --cflags libcjson ncursesw)
for t in $targets; do
	[ -f "$src/tests/fuzz/fuzz_$t.c" ] || { echo "fuzz: no target '$t'" >&2; exit 2; }
	# shellcheck disable=SC2086 # flags are words
	"$CC_FUZZ" $flags -Wall -Wextra -Werror -fsanitize=fuzzer -I"$out" -I"$src/src" \
		-I"$src/src/engine" -I"$src/tests" $syscflags \
		-DAV_SRCDIR="\"$src\"" -o "$out/fuzz_$t" "$src/tests/fuzz/fuzz_$t.c" $libs $syslibs
done

# seeds: the kinds of file each target reads
seeds() {
	case $1 in
	sample) echo "$src/samples $src/tests/bad/sample-*" ;;
	weights|trace) echo "$src/tests/fixtures $src/tests/bad/weights-*" ;;
	theme) echo "$src/themes $src/tests/bad/theme-*" ;;
	tokenizer) echo "$src/samples $src/tests/fuzz/tokenizer-seeds" ;;
	screen) echo "$src/tests/fuzz/screen-seeds" ;;
	keyboard) echo "$src/tests/fuzz/keyboard-seeds" ;;
	lesson) echo "$src/lessons $src/tests/fuzz/lesson-seeds" ;;
	follow) echo "$src/tests/fuzz/follow-seeds" ;;
	safetensors) echo "$src/tests/fuzz/safetensors-seeds" ;;
	model) echo "$src/tests/fuzz/model-seeds" ;;
	bpe) echo "$src/tests/fuzz/bpe-seeds" ;;
	esac
}

run_one() {
	t=$1
	corpus="$out/corpus/$t"
	mkdir -p "$corpus" "$out/$t"
	# shellcheck disable=SC2046 # one word per seed path
	find $(seeds "$t") -type f -size -64k -exec cp {} "$corpus/" \; 2>/dev/null || true
	log="$out/$t/fuzz.log"
	# files up to 64 KB; key streams up to 1 KB from the start (libFuzzer
	# would otherwise grow its inputs slowly from a few bytes, and a
	# screen input runs for milliseconds)
	lengths="-max_len=65536"
	[ "$t" = screen ] && lengths="-max_len=1024 -len_control=0"
	[ "$t" = keyboard ] && lengths="-max_len=4096"
	# shellcheck disable=SC2086 # $lengths is two words
	if (cd "$out/$t" && nice -n "${FUZZ_NICE:-10}" env ATTNVIEW_DATA_DIR="$src" \
		ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		"$out/fuzz_$t" -max_total_time="$seconds" $lengths -rss_limit_mb=2048 \
		-timeout=30 -print_final_stats=1 "$corpus" >"$log" 2>&1); then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		echo "fuzz: $t: clean, $execs runs in ${seconds}s"
	else
		echo "fuzz: $t: FAILED; the log: $log"
		grep -E 'ERROR|SUMMARY|fuzz check|Test unit written' "$log" | head -5
		return 1
	fi
}

rm -f "$out/failed"
running=0
for t in $targets; do
	{ run_one "$t" || touch "$out/failed"; } &
	running=$((running + 1))
	if [ "$running" -ge "${FUZZ_JOBS:-1}" ]; then
		wait
		running=0
	fi
done
wait
[ ! -f "$out/failed" ]
