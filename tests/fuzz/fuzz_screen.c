/* fuzz_screen.c: any bytes as what the screen reads, through the headless
 * test harness (tests/ui_harness.h: ncurses on /dev/null). Each input gets
 * a fresh app on the built-in sample at 80x24; its bytes are read as keys
 * (UTF-8 characters, or AV_KEY_NOT_UTF8 for a byte that is not, as
 * ui/keyboard.c reads them) into
 * av_app_key and av_app_draw, except that 0xff starts an event:
 *
 *   0xff 0 C L    resize to (C % 250 + 1) x (L % 80 + 1) as ncurses does on
 *                 SIGWINCH (resizeterm), a training tick and a redraw
 *                 before KEY_RESIZE is read, then KEY_RESIZE
 *   0xff 1 K      the function key KEY_MIN + K (arrows, F keys, KEY_RESIZE...)
 *   0xff 2        a training tick (the main loop's work between keys)
 *   0xff 3 C L    resizeterm only: the next keys come before KEY_RESIZE
 *   0xff 4 B      a bracketed paste's mark: its start (B even) or end
 *   0xff 5 N      a burst: the next N % 16 + 1 keys and events come with no
 *                 redraw between them, as keys typed ahead (or sent by tmux
 *                 in one write) are all read before the next draw; the
 *                 draw is what puts a cursor back on a shrunk matrix, so a
 *                 key in a burst finds it where a longer sentence left it
 *
 * An input that starts with 0xfe S starts elsewhere than the built-in
 * sample in self-attention: S % 6 picks it from starts[] below (causal
 * mode, the cross-attention sample, two lessons with their caption pane,
 * and the seed lesson with hidden keys, training steps and questions by
 * position that the installed lessons do not have).
 *
 * After every redraw each window the views keep must lie inside the screen.
 * q ends the input, as it ends the program. ':' and W are skipped: through
 * them the keys could write files anywhere. */
#include "config.h"

#include "fuzz_common.h"
#define fail() abort()          /* ui_harness.h's checks are cmocka's */
#include "lesson/lesson.h"
#include "ui/keyboard.h"
#include "ui/views/view_train_internal.h"
#include "ui_harness.h"

#define MAX_EVENTS 3000        /* keys and events per input */
#define MAX_TICKS 64           /* a tick trains for up to 25 ms */

static void check_windows(const struct av_app *a)
{
	const WINDOW *ws[11 + P_COUNT] = { a->w_header, a->w_tokens, a->w_title, a->w_panel,
					   a->w_legend, a->w_insp, a->w_status, a->w_overlay,
					   a->w_small, a->w_box, a->w_lesson };
	int n = 11;
	if (a->train)
		for (int p = 0; p < P_COUNT; p++)
			ws[n++] = a->train->w[p];
	for (int i = 0; i < n; i++) {
		if (!ws[i])
			continue;
		int y = getbegy(ws[i]), x = getbegx(ws[i]);
		int h = getmaxy(ws[i]), w = getmaxx(ws[i]);
		FUZZ_CHECK(y >= 0 && x >= 0 && y + h <= LINES && x + w <= COLS,
			   "a %dx%d window at (%d,%d) on a %dx%d screen", w, h, x, y, COLS, LINES);
	}
}

static void draw(struct av_app *a)
{
	av_app_draw(a);
	check_windows(a);
}

static int ticks;

static void tick(struct av_app *a)
{
	if (ticks++ < MAX_TICKS)
		av_app_tick(a);
}

/* Where an input starts (0xfe S): a sample and mode, or a lesson. */
static const struct start {
	const char *sample, *lesson;
	int mode;
} starts[] = {
	{ "", NULL, -1 },
	{ "", NULL, AV_MODE_CAUSAL },
	{ "translate-cross", NULL, -1 },
	{ NULL, "first-look", -1 },
	{ NULL, "china-panda", -1 },
	{ NULL, AV_SRCDIR "/tests/fuzz/lesson-seeds/self-features.json", -1 },
};

/* The session and app of start st; l holds its lesson, if any. */
static void open_start(struct harness *h, const struct start *st, struct av_lesson *l)
{
	char *cause = NULL;
	bool ok = st->lesson ? av_lesson_load(st->lesson, l, &cause) &&
			       av_lesson_session_new(l, &h->s, &cause)
			     : harness_session(&h->s, st->sample, NULL, st->mode, &cause);
	FUZZ_CHECK(ok, "session: %s", cause);
	struct av_ui_config cfg = { .theme = NULL, .head = 0, .no_color = false,
				    .lesson = st->lesson ? l : NULL };
	FUZZ_CHECK(av_app_init(&h->a, &h->s, &cfg, &cause), "app: %s", cause);
	free(cause);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct harness h;
	static bool ready;
	if (!ready) {
		harness_setup_process();
		harness_screen(&h, "xterm-256color", 80, 24);
		ready = true;
	}
	resizeterm(24, 80);
	const struct start *st = &starts[0];
	if (size >= 2 && data[0] == 0xfe) {
		st = &starts[data[1] % (sizeof(starts) / sizeof(starts[0]))];
		data += 2;
		size -= 2;
	}
	struct av_lesson lesson;
	memset(&lesson, 0, sizeof(lesson));
	open_start(&h, st, &lesson);
	draw(&h.a);
	ticks = 0;
	int burst = 0;   /* keys and events still to come before a redraw */
	const char *in = (const char *)data;
	size_t i = 0;
	for (int events = 0; i < size && events < MAX_EVENTS && !h.a.quit; events++) {
		unsigned char b = data[i];
		if (b == 0xff && i + 1 < size) {
			unsigned char op = data[i + 1] % 6;
			i += 2;
			if (op == 5 && i < size) {
				burst = data[i++] % 16 + 1;
				continue;
			} else if (op == 1 && i < size) {
				av_app_key(&h.a, AV_FKEY(KEY_MIN + data[i++]));
			} else if (op == 2) {
				tick(&h.a);
			} else if (op == 4 && i < size) {
				av_app_key(&h.a, data[i++] % 2 ? AV_KEY_PASTE_END : AV_KEY_PASTE_BEGIN);
			} else if ((op == 0 || op == 3) && i + 1 < size) {
				resizeterm(data[i + 1] % 80 + 1, data[i] % 250 + 1);
				i += 2;
				if (op == 0) {
					tick(&h.a);
					draw(&h.a);
					av_app_key(&h.a, AV_FKEY(KEY_RESIZE));
				}
			}
		} else {
			/* as ui/keyboard.c reads them: a byte that does not
			 * start UTF-8 is AV_KEY_NOT_UTF8 */
			uint32_t cp;
			int k = av_utf8_decode(in + i, size - i, &cp);
			if (k <= 0) {
				cp = AV_KEY_NOT_UTF8;
				k = 1;
			}
			i += (size_t)k;
			/* ':' (commands such as :write PATH) and W write files where
			 * the input says: not from a fuzzer */
			if (cp == ':' || cp == 'W')
				continue;
			av_app_key(&h.a, (int)cp);
		}
		if (burst > 0)
			burst--;
		else
			draw(&h.a);
	}
	av_app_free(&h.a);
	av_session_free(&h.s);
	if (st->lesson)
		av_lesson_free(&lesson);
	return 0;
}
