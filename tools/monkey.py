#!/usr/bin/env python3
"""monkey.py: random keys and window sizes into attnview in a real terminal.

    tools/monkey.py [--seconds S] [--seed N] [--class] [--valgrind] [--lang L] BINARY

Runs BINARY (best an --enable-sanitizers build) in tmux at 80x24 with one of
several settings (samples, lessons, modes, themes, locales) and sends it
random batches of keys (letters, punctuation, arrows, function and control
keys, CJK and bidi characters) and, now and then, a new window size: most
from 10x4 to 220x70, the others at the edges, from 1x1 (a single row or
column too) up to 300x100; when attnview quits (a random q, :quit) it
starts again with other settings. --lang sets LANG for every run instead of
a random one of LOCALES. With --class the same runs as a teacher (--lead) with a
student (--follow) beside it, who gets a tenth of the keys. With --valgrind
each run is under valgrind's memcheck (slower; finds reads of uninitialised
memory, which ASan does not).

It fails (exit 1) when a run ends with another status than 0 or leaves an
ASan, UBSan or valgrind report, printing the settings, the last keys sent
and the screen; the reports are kept in the work folder. It does what the
libFuzzer screen target (tests/fuzz/fuzz_screen.c) cannot: a real terminal,
ncurses' own resize handling, two processes on one room. Files attnview
writes when the keys happen to ask (W, :write) land in the work folder.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

KEYS = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"] + \
    list("!@#$%^&*()-_=+[]{}:'\",.<>/?\\|`~ ") + ["\\;"] + \
    ["Up", "Down", "Left", "Right", "Tab", "BTab", "Enter", "Escape", "BSpace", "DC",
     "Home", "End", "PPage", "NPage", "F1", "F2", "F5", "F10", "C-a", "C-e", "C-k",
     "C-u", "C-w", "C-l", "C-r", "C-n", "C-p", "M-a", "M-x",
     "熊", "猫", "é", "\u202e"]
SETTINGS = ["", "--lesson=first-look", "--lesson=qkv-walkthrough", "--lesson=china-panda",
            "--sample=qkv-walkthrough", "--sample=translate-cross", "--mode=causal",
            "--heads=3 --d-model=6", "--theme=mono",
            # 18 tokens at D=512: the products that keep W^T's copies
            "--sample=qkv-walkthrough 'a b c d e f g h i j k l m n o p q r'"]
LOCALES = ["C.UTF-8", "C.UTF-8", "zh_CN.UTF-8", "C"]

# ncurses 6.4 writes the bottom-right cell of a one-column terminal that
# has automatic margins it cannot turn off (tmux's TERM=screen) by
# inserting it at column -1, reading before the row (tty_update.c,
# PutCharLR). attnview leaves that cell blank, but a resize to one column
# that ncurses takes inside doupdate() (a SIGWINCH while a frame is drawn)
# sends the old frame's cells cut to one column first.
NCURSES_SUPPRESSION = """{
   ncurses-6.4-one-column-corner
   Memcheck:Addr4
   obj:*/libncursesw.so.6*
   obj:*/libncursesw.so.6*
   obj:*/libncursesw.so.6*
   fun:doupdate_sp
}
"""


def window_size(rng):
    """A new size: a usual one, or one at the edges that views must survive."""
    kind = rng.random()
    if kind < 0.6:
        return rng.randint(10, 220), rng.randint(4, 70)
    if kind < 0.75:
        return rng.randint(1, 12), rng.randint(1, 6)           # tiny
    if kind < 0.85:
        return rng.choice([(1, rng.randint(1, 100)), (rng.randint(1, 300), 1)])  # a line
    return rng.randint(200, 300), rng.randint(60, 100)         # a wall


class Run:
    """One tmux server with attnview (and a follower with --class)."""

    def __init__(self, args, work, number, rng):
        self.socket = "attnview-monkey-%d-%d" % (os.getpid(), number)
        self.status = os.path.join(work, "status.%d" % number)
        self.settings = rng.choice(SETTINGS)
        self.locale = args.lang or rng.choice(LOCALES)
        self.keys = []
        env = ("ATTNVIEW_DATA_DIR=%s LANG=%s ASAN_OPTIONS=log_path=%s/asan "
               "UBSAN_OPTIONS=log_path=%s/ubsan:print_stacktrace=1"
               % (args.data, self.locale, work, work))
        run = args.binary
        if args.valgrind:
            supp = os.path.join(work, "ncurses.supp")
            with open(supp, "w") as f:
                f.write(NCURSES_SUPPRESSION)
            run = ("valgrind --quiet --error-exitcode=99 --suppressions=%s "
                   "--log-file=%s/valgrind.%%p %s" % (supp, work, args.binary))
        room = ""
        if args.klass:
            room = " --lead=monkey%d-%d" % (os.getpid(), number)
        # a window that outlives attnview, so its status can be read
        shell = "cd %s && %s %s %s%s; echo $? >> %s; sleep 3600"
        self.tmux("-f", "/dev/null", "new-session", "-d", "-s", "m", "-x", "80", "-y", "24",
                  shell % (work, env, run, self.settings, room, self.status))
        if args.klass:
            # the follower needs the teacher's sample, not its lesson
            follow = self.settings.replace("--lesson=qkv-walkthrough", "--sample=qkv-walkthrough")
            follow = follow.replace("--lesson=first-look", "").replace("--lesson=china-panda", "")
            self.tmux("new-window", "-d", "-t", "m",
                      "sleep 1; " + shell % (work, env, run, follow,
                                             room.replace("--lead", "--follow"), self.status))

    def tmux(self, *argv, check=False):
        return subprocess.run(["tmux", "-L", self.socket] + list(argv),
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, check=check).stdout

    def statuses(self):
        if not os.path.exists(self.status):
            return []
        with open(self.status) as f:
            return f.read().split()

    def describe(self):
        return "settings %r, LANG=%s" % (self.settings, self.locale)

    def close(self):
        self.tmux("kill-server")


def reports(work):
    return sorted(f for f in os.listdir(work)
                  if f.startswith(("asan", "ubsan")) or
                  (f.startswith("valgrind.") and os.path.getsize(os.path.join(work, f)) > 0))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("binary")
    p.add_argument("--seconds", type=float, default=300)
    p.add_argument("--seed", type=int, default=int(time.time()))
    p.add_argument("--class", dest="klass", action="store_true")
    p.add_argument("--valgrind", action="store_true")
    p.add_argument("--lang", help="LANG of every run (default: a random one of %s)"
                   % ", ".join(sorted(set(LOCALES))))
    p.add_argument("--data", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   help="ATTNVIEW_DATA_DIR (default: this source tree)")
    args = p.parse_args()
    args.binary = os.path.abspath(args.binary)
    if not shutil.which("tmux"):
        sys.exit("monkey: needs tmux")
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="attnview-monkey.")
    print("monkey: seed %d, %g s, work folder %s" % (args.seed, args.seconds, work), flush=True)
    runs = actions = 0
    end = time.time() + args.seconds
    while time.time() < end:
        runs += 1
        run = Run(args, work, runs, rng)
        time.sleep(1.5 if args.klass else 0.5)
        finished = False
        while time.time() < end and not finished:
            if rng.random() < 0.03:
                size = window_size(rng)
                run.tmux("resize-window", "-t", "m:0", "-x", str(size[0]), "-y", str(size[1]))
                run.keys.append("(resize %dx%d)" % size)
            else:
                batch = [rng.choice(KEYS) for _ in range(rng.randint(1, 6))]
                pane = "m:1" if args.klass and rng.random() < 0.1 else "m:0"
                run.tmux("send-keys", "-t", pane, *batch)
                run.keys.append(pane[2:] + ": " + " ".join(batch))
            actions += 1
            time.sleep(rng.choice([0, 0.01, 0.05]))
            if actions % 50 == 0:
                time.sleep(0.3)
                finished = bool(run.statuses())
        time.sleep(0.5)
        bad = [s for s in run.statuses() if s != "0"]
        found = reports(work)
        if bad or found:
            print("monkey: FAIL: exit status %s, reports %s; %s" % (bad, found, run.describe()))
            print("last keys:\n  " + "\n  ".join(run.keys[-30:]))
            print(run.tmux("capture-pane", "-p", "-t", "m:0"))
            run.close()
            sys.exit(1)
        run.close()
    print("monkey: clean, %d actions in %d runs" % (actions, runs))
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
