/* layout.c: screen arithmetic (see layout.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "layout.h"
#include "utf8.h"
#include "util.h"

/* At the smallest size cross mode's second row of tokens takes the title's
 * second row (its shapes go to the caption, as when they are too wide), so
 * that 40x12 holds every mode: it needed 13, and c at 40x12 left a screen
 * that said only "too small", where c no longer worked. */
int av_layout_min_lines(int token_rows)
{
	return AV_MIN_LINES + (token_rows > 2 ? token_rows - 2 : 0);
}

static struct av_rect rect(int y, int x, int h, int w)
{
	struct av_rect r = { y, x, h, w };
	return r;
}

/* Inspector rows for a given number of lines. */
static int inspector_rows(int lines)
{
	if (lines >= 40)
		return 7;
	if (lines >= 24)
		return 4;
	if (lines >= 18)
		return 3;
	if (lines >= 15)
		return 2;
	return 0;
}

void av_layout_compute(struct av_layout *l, int cols, int lines, int token_rows)
{
	memset(l, 0, sizeof(*l));
	l->cols = cols;
	l->lines = lines;
	if (token_rows < 1)
		token_rows = 1;
	if (cols < AV_MIN_COLS || lines < av_layout_min_lines(token_rows)) {
		l->too_small = true;
		return;
	}
	int insp = inspector_rows(lines);
	int legend = lines - (token_rows - 1) >= 14 ? 1 : 0;
	int y = 0;
	l->header = rect(y, 0, 1, cols);
	y += 1;
	l->tokens = rect(y, 0, token_rows, cols);
	y += token_rows;
	int title = lines - (token_rows - 1) < AV_MIN_LINES ? 1 : 2;
	l->title = rect(y, 0, title, cols);
	y += title;
	int bottom = legend + insp + 1;
	l->panel = rect(y, 0, lines - y - bottom, cols);
	y += l->panel.h;
	l->legend = rect(y, 0, legend, cols);
	y += legend;
	l->inspector = rect(y, 0, insp, cols);
	y += insp;
	l->status = rect(y, 0, 1, cols);
}

char *av_layout_too_small_text(int cols, int lines, int token_rows)
{
	return av_printf(_("terminal too small: %d×%d, needs at least %d×%d"), cols, lines,
			 AV_MIN_COLS, av_layout_min_lines(token_rows));
}

/* --- the header ---------------------------------------------------------- */

enum { PIECE_MAX = 12 };

/* What a narrow header gives up, in this order, until it fits: the
 * program's own name (the user knows it); the "=" signs of "D=512 H=8
 * dh=64", then the "scale=" before the scale (the same facts in fewer
 * columns); the sample's name, or the model's in its place (the tokens
 * line shows the sentence); then "seed=7" becomes "s7", and
 * the seed goes. The seed is kept long because every number on the screen
 * follows from it: a class told "use seed 7" must be able to check it.
 * Then whole settings go, the least telling first: the scale (rarely
 * changed, and cryptic once short), a temperature of 1 (the default says
 * it), the sizes (fixed by the sample), another temperature, the seed of
 * trained weights with their epochs; then the details of the view's label
 * ("pinned: softmax head 0, self, dk, T=1": the compare view shows them
 * under the header) go, word by word, down to its name; then the lesson's
 * "lesson 4/17" (which stood in the sample's place and went with it, so a
 * teacher's pin took it away; where the view's title row begins with
 * its name, "all heads: scores", that name goes before it: at 40 columns
 * the all-heads view's label took "lesson 1/15"); last the mode and then
 * the class ("3 following": whether the screen follows a teacher is said
 * nowhere else). In a class (a teacher's or a student's header) the sample's name
 * is kept longer, after the seed: the scale and a temperature of 1 go
 * before "seed=7" becomes "s7", then the sizes (which the name says), then
 * the seed, another temperature and trained weights' seed and epochs (a
 * student read "following  causal  T=1.25  s0 trained 268 ep": the seed
 * outlasted the name), then a pin's details (a student read "following
 * causal   pinned: softmax head 1, causal, dmodel, T=1.25": the teacher's
 * pin took the name; a student is told what the teacher pinned on a line
 * of its own), then the name. Which sample a screen shows is what a student
 * checks against the teacher's: "cannot follow  self  D512 H8 dh64  dmodel
 * T=1  seed=0" at 80 columns did not say whose sample it could not follow.
 * A model's layer, the view's name (but one its title row says) and the
 * stage never go. What
 * still does not fit is cut after a whole word, never inside one
 * ("causa…" read as nothing). */
enum squeeze {
	SQUEEZE_NEVER,
	SQUEEZE_PROGRAM_NAME,
	SQUEEZE_SIZES_SHORT,
	SQUEEZE_SCALE_SHORT,
	SQUEEZE_CLASS_EXTRAS,        /* in a class: the scale, a temperature of 1 */
	SQUEEZE_SAMPLE_NAME,
	SQUEEZE_SEED_SHORT,
	SQUEEZE_CLASS_SIZES,         /* in a class: the sizes (the name says them) */
	SQUEEZE_SEED,
	SQUEEZE_SCALE,
	SQUEEZE_TEMPERATURE_DEFAULT,
	SQUEEZE_SIZES,
	SQUEEZE_TEMPERATURE,
	SQUEEZE_WEIGHTS,
	SQUEEZE_VIEW_DETAILS,
	SQUEEZE_CLASS_SAMPLE_NAME,   /* in a class: the sample's name */
	SQUEEZE_VIEW_IN_TITLE,       /* a view's name its title row says */
	SQUEEZE_LESSON,
	SQUEEZE_MODE,
	SQUEEZE_CLASSROOM,
	SQUEEZE_LAST = SQUEEZE_CLASSROOM
};

struct piece {
	char text[208];
	enum squeeze drop;       /* the level that drops it */
	char shorter[208 + 4];   /* instead of text from level `shorten` on
				  * (a cut text's "…" can take 2 bytes more) */
	enum squeeze shorten;
	bool gone, short_form;   /* what fit_pieces chose */
	/* the view's label: drawn at the right, tail columns (" · ") before
	 * the stage; its name is its first name_len bytes, and its details
	 * begin at byte details (0: it has none) */
	bool beside_stage;
	int tail;
	size_t name_len, details;
};

static const char *piece_shown(const struct piece *p)
{
	return p->short_form ? p->shorter : p->text;
}

/* The columns the pieces take: two between those at the left, and the
 * view's label with what separates it from the stage. */
static int pieces_width(const struct piece *p, int count)
{
	int w = 0, shown = 0;
	for (int i = 0; i < count; i++) {
		if (p[i].gone)
			continue;
		w += av_utf8_width(piece_shown(&p[i]));
		if (p[i].beside_stage) {
			w += p[i].tail;
			continue;
		}
		w += shown ? 2 : 0;
		shown++;
	}
	return w;
}

/* Cuts s (UTF-8) to at most cols columns, at a character boundary and not
 * right after a digit (when something was cut). */
static void cut_columns(char *s, int cols)
{
	size_t len = strlen(s), off = 0;
	int used = 0;
	while (off < len) {
		uint32_t cp;
		int k = av_utf8_decode(s + off, len - off, &cp);
		if (k < 0)
			k = 1;
		int cw = k < 0 ? 1 : av_cp_width(cp);
		if (used + cw > cols)
			break;
		used += cw;
		off += (size_t)k;
	}
	/* a cut text never ends in a number: "trained 20…" of 200 epochs, "T=0…"
	 * of 0.64 and "trained 12…" of "12 ep" all read as another number */
	if (off < len)
		while (off > 0 && ((s[off - 1] >= '0' && s[off - 1] <= '9') || s[off - 1] == '.'))
			off--;
	s[off] = '\0';
}

/* Cuts s (UTF-8) after its last whole word that leaves room for "…" in
 * cols columns, and ends it with "…"; a word ends at a space or where a
 * line of Chinese may break (av_line_may_break), and what may not stand
 * before a "…" goes too (av_keep_before_ellipsis: "dk, …", "trained 12…"
 * of "12 ep"). Nothing fits: "…". s needs room for 2 bytes more than its
 * length ("…" after "ab cd" of "ab cd e"). */
static void cut_after_word(char *s, int cols)
{
	size_t len = strlen(s), off = 0, keep = 0;
	int used = 0;
	uint32_t before = 0;
	while (off < len) {
		uint32_t cp;
		int k = av_utf8_decode(s + off, len - off, &cp);
		if (k < 0) {
			k = 1;
			cp = 0xFFFD;
		}
		bool boundary = cp == ' ' || before == ' '
				|| ((av_cp_is_wide(cp) || av_cp_is_wide(before))
				    && av_line_may_break(before, cp));
		if (off > 0 && boundary)
			keep = off;
		used += av_cp_width(cp);
		if (used + 1 > cols)   /* the "…" after it */
			break;
		off += (size_t)k;
		before = cp;
	}
	if (off >= len)
		return;
	strcpy(s + av_keep_before_ellipsis(s, keep, " ,:;"), "…");
}

/* text (size bytes) after snprintf, which wanted len: a cut text (a long
 * sample name or folder) ends in "…" after its last whole character. */
static void piece_text(char *text, size_t size, int len)
{
	static const char more[] = "…";
	if (len < 0 || (size_t)len < size)
		return;
	size_t keep = size - sizeof(more);
	text[keep] = '\0';
	av_utf8_drop_cut_character(text, keep + 1);
	strcat(text, more);
}

/* Where the details of a view's label begin, after its name (*name_len
 * bytes) and a colon ("pinned: softmax head 0", "固定：…"), or 0: it has
 * none. */
static size_t view_details(const char *view, size_t *name_len)
{
	const char *colon = strchr(view, ':'), *wide = strstr(view, "：");
	if (!colon || (wide && wide < colon))
		colon = wide;
	*name_len = strlen(view);
	if (!colon || colon == view)
		return 0;
	size_t at = (size_t)(colon - view) + (*colon == ':' ? 1 : strlen("："));
	while (view[at] == ' ')
		at++;
	if (!view[at])
		return 0;
	*name_len = (size_t)(colon - view);
	return at;
}

/* The header's pieces, left to right, each with the levels that drop it
 * and shorten it (enum squeeze); returns how many. */
static int header_pieces(const struct av_header_info *h, struct piece p[PIECE_MAX])
{
	int count = 0;
	memset(p, 0, PIECE_MAX * sizeof(*p));
#define PIECE(drop_, ...) do { \
		piece_text(p[count].text, sizeof(p[count].text), \
			   snprintf(p[count].text, sizeof(p[count].text), __VA_ARGS__)); \
		p[count].drop = (drop_); \
		count++; \
	} while (0)
#define SHORTER(level, ...) do { \
		snprintf(p[count - 1].shorter, sizeof(p[0].shorter), __VA_ARGS__); \
		p[count - 1].shorten = (level); \
	} while (0)
	bool class = h->classroom != NULL;
	PIECE(SQUEEZE_PROGRAM_NAME, "attnview");
	if (h->lesson)   /* the lesson names its sample */
		PIECE(SQUEEZE_LESSON, "%s", h->lesson);
	else
		PIECE(class ? SQUEEZE_CLASS_SAMPLE_NAME : SQUEEZE_SAMPLE_NAME, "%s",
		      h->sample ? h->sample : "?");
	if (h->model)   /* the layer goes before the settings: never cut off */
		PIECE(SQUEEZE_NEVER, "%s", h->model);
	if (h->classroom)
		PIECE(SQUEEZE_CLASSROOM, "%s", h->classroom);
	PIECE(SQUEEZE_MODE, "%s", h->mode);
	PIECE(class ? SQUEEZE_CLASS_SIZES : SQUEEZE_SIZES, "D=%d H=%d dk=%d", h->d_model, h->heads,
	      h->head_dim);
	SHORTER(SQUEEZE_SIZES_SHORT, "D%d H%d dk%d", h->d_model, h->heads, h->head_dim);
	PIECE(class ? SQUEEZE_CLASS_EXTRAS : SQUEEZE_SCALE, "scale=%s", h->scale);
	SHORTER(SQUEEZE_SCALE_SHORT, "%s", h->scale);
	PIECE(h->temperature != 1 ? SQUEEZE_TEMPERATURE
	      : class ? SQUEEZE_CLASS_EXTRAS : SQUEEZE_TEMPERATURE_DEFAULT,
	      "T=%.3g", h->temperature);
	unsigned long long seed = (unsigned long long)h->seed;
	if (h->model) {
		/* no seed: the model's weights come from its file */
	} else if (h->weights) {
		/* the weights are no longer the seed's: said while any setting is */
		PIECE(SQUEEZE_WEIGHTS, "seed=%llu %s", seed, h->weights);
		SHORTER(SQUEEZE_SEED_SHORT, "s%llu %s", seed, h->weights);
	} else {
		PIECE(SQUEEZE_SEED, "seed=%llu", seed);
		SHORTER(SQUEEZE_SEED_SHORT, "s%llu", seed);
	}
	if (!h->model && h->init) {   /* how the seed's weights were drawn */
		PIECE(SQUEEZE_SEED, "init=%s", h->init);
		SHORTER(SQUEEZE_SEED_SHORT, "%s", h->init);
	}

	if (h->view) {
		PIECE(h->view_in_title ? SQUEEZE_VIEW_IN_TITLE : SQUEEZE_NEVER, "%s", h->view);
		struct piece *v = &p[count - 1];
		v->beside_stage = true;
		v->tail = h->n_stages > 0 ? 3 : 0;   /* " · " */
		v->details = view_details(v->text, &v->name_len);
		if (v->details)
			v->shorten = SQUEEZE_VIEW_DETAILS;
	}
#undef SHORTER
#undef PIECE
	return count;
}

/* Widest a piece may be once the header is squeezed: a long sample name
 * is cut to this ("…") before anything is dropped for it. */
#define PIECE_SQUEEZED_COLS 24

/* Applies (or undoes) one level of enum squeeze to the pieces. */
static void squeeze_level(struct piece *p, int count, enum squeeze level, bool on)
{
	for (int i = 0; i < count; i++) {
		if (p[i].drop == level)
			p[i].gone = on;
		if (p[i].shorten == level)
			p[i].short_form = on;
	}
}

/* The view's label without as many words of its details as the pieces
 * need to fit in room columns: its shorter form, down to its name. */
static void cut_view_details(struct piece *p, int count, int room)
{
	for (int i = 0; i < count; i++) {
		struct piece *v = &p[i];
		if (!v->beside_stage || !v->details || v->gone)
			continue;
		int over = pieces_width(p, count) - room;
		memcpy(v->shorter, v->text, sizeof(v->text));
		cut_after_word(v->shorter, av_utf8_width(v->text) - over);
		if (strlen(v->shorter) <= v->details + strlen("…"))   /* none of them left */
			snprintf(v->shorter, sizeof(v->shorter), "%.*s", (int)v->name_len, v->text);
	}
}

/* Squeezes the pieces level by level (enum squeeze) until they fit in room
 * columns or nothing more can go. */
static void fit_pieces(struct piece *p, int count, int room)
{
	/* a 120-column name took the seed and itself away with 70 columns
	 * to spare: cut first (and whole again at the end if it fits) */
	char whole[PIECE_MAX][sizeof(p->text)];
	bool cut[PIECE_MAX] = { false };
	for (int i = 0; i < count && pieces_width(p, count) > room; i++)
		if (!p[i].beside_stage && av_utf8_width(p[i].text) > PIECE_SQUEEZED_COLS) {
			memcpy(whole[i], p[i].text, sizeof(p[i].text));
			cut[i] = true;
			cut_columns(p[i].text, PIECE_SQUEEZED_COLS - 1);
			strcat(p[i].text, "…");
		}
	enum squeeze level = SQUEEZE_NEVER;
	while (level < SQUEEZE_LAST && pieces_width(p, count) > room) {
		if (++level == SQUEEZE_VIEW_DETAILS)
			cut_view_details(p, count, room);
		squeeze_level(p, count, level, true);
	}
	/* a wide setting that went last can leave room for narrower ones that
	 * went before it ("T=1" once "seed=1 trained 200 ep" is gone): back
	 * they come, the most telling first, until one does not fit, so none
	 * takes the room of a more telling one (the names, seed and long
	 * forms stay gone: they went before any setting) */
	for (int back = (int)level - 1; back > SQUEEZE_SEED; back--) {
		squeeze_level(p, count, (enum squeeze)back, false);
		if (pieces_width(p, count) > room) {
			squeeze_level(p, count, (enum squeeze)back, true);
			break;
		}
	}
	/* a piece cut to PIECE_SQUEEZED_COLS before anything went whole
	 * again where what went since left the room: "seed=12345 trained 200
	 * …" (one column short) stood beside eight blank ones at 90 */
	for (int i = 0; i < count; i++) {
		if (!cut[i] || p[i].gone)
			continue;
		char shown[sizeof(p->text)];
		memcpy(shown, p[i].text, sizeof(shown));
		memcpy(p[i].text, whole[i], sizeof(p[i].text));
		if (pieces_width(p, count) > room)
			memcpy(p[i].text, shown, sizeof(shown));
	}
}

/* The pieces at the left, two spaces apart, padded so that the view's
 * label and the stage end at the right edge; when still too wide the left
 * is cut after a word (…), never the stage. */
static char *join_header(const struct piece *p, int count, const char *stage, int width)
{
	/* a label of 208 bytes, " · " and a stage of 96 */
	char right[sizeof(p->text) + 8 + 96] = "";
	for (int i = 0; i < count; i++)
		if (p[i].beside_stage && !p[i].gone) {
			strcpy(right, piece_shown(&p[i]));
			strcat(right, *stage ? " · " : "");
		}
	strcat(right, stage);
	int right_w = av_utf8_width(right);
	size_t cap = (size_t)width * 4 + 1024;
	char *out = av_calloc(cap, 1);
	int w = 0;
	for (int i = 0; i < count; i++) {
		if (p[i].gone || p[i].beside_stage)
			continue;
		const char *s = piece_shown(&p[i]);
		if (w) {
			strcat(out, "  ");
			w += 2;
		}
		strcat(out, s);
		w += av_utf8_width(s);
	}
	if (w + 2 + right_w > width && width > right_w + 3) {
		cut_after_word(out, width - right_w - 2);
		w = av_utf8_width(out);
	}
	if (w + 2 + right_w <= width) {
		for (; w < width - right_w; w++)
			strcat(out, " ");
		strcat(out, right);
	} else {
		strcat(out, "  ");
		strcat(out, right);
	}
	return out;
}

char *av_layout_header(const struct av_header_info *h, int width)
{
	struct piece p[PIECE_MAX];
	int count = header_pieces(h, p);
	char stage[96] = "";
	if (h->n_stages > 0)
		snprintf(stage, sizeof(stage), "%d/%d %s", h->stage + 1, h->n_stages,
			 h->stage_name ? h->stage_name : "");
	int stage_w = av_utf8_width(stage);
	fit_pieces(p, count, width - (h->stage_reserve > stage_w ? h->stage_reserve : stage_w) - 2);
	return join_header(p, count, stage, width);
}

/* --- wrapping and hints ---------------------------------------------------- */

static bool in_list(uint32_t cp, const uint32_t *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == cp)
			return true;
	return false;
}

/* A number and the CJK character after it, its measure word or unit ("8
 * 个", "3 位小数", "第 2 行"): read as one, so no line ends between them. */
static bool number_then_cjk(uint32_t before, uint32_t after)
{
	return before >= '0' && before <= '9' && av_cp_is_wide(after);
}

bool av_line_may_break(uint32_t before, uint32_t after)
{
	static const uint32_t no_line_start[] = {
		0x3001, 0x3002, 0xFF0C, 0xFF0E, 0xFF1A, 0xFF1B, 0xFF01, 0xFF1F,  /* 、。，．：；！？ */
		0xFF09, 0x300D, 0x300F, 0x300B, 0x3009, 0x3011, 0x3015, 0xFF3D,  /* ）」』》〉】〕］ */
		0xFF5D, 0x201D, 0x2019, 0x2026, 0x00B7, 0x30FB,                  /* ｝”’…·・ */
	};
	static const uint32_t no_line_end[] = {
		0xFF08, 0x300C, 0x300E, 0x300A, 0x3008, 0x3010, 0x3014, 0xFF3B,  /* （「『《〈【〔［ */
		0xFF5B, 0x201C, 0x2018,                                          /* ｛“‘ */
	};
	return !in_list(after, no_line_start, sizeof(no_line_start) / sizeof(no_line_start[0]))
	       && !in_list(before, no_line_end, sizeof(no_line_end) / sizeof(no_line_end[0]))
	       && !number_then_cjk(before, after);
}

/* Whether a line may end at the space at s[at] (one of a run): not between
 * a number and the CJK character after the spaces (number_then_cjk), which
 * translations write "8 个". */
static bool space_may_break(const char *s, size_t len, size_t at)
{
	size_t b = at, k = at;
	while (b > 0 && s[b - 1] == ' ')
		b--;
	while (k < len && s[k] == ' ')
		k++;
	uint32_t after;
	if (b == 0 || k >= len || av_utf8_decode(s + k, len - k, &after) < 0)
		return true;
	return !number_then_cjk((unsigned char)s[b - 1], after);
}

/* The code point that ends s[0..at) and the one that starts s[at..len). */
static void around(const char *s, size_t len, size_t at, uint32_t *before, uint32_t *after)
{
	size_t b = av_utf8_previous(s, at);
	*before = *after = 0;
	if (at > 0 && av_utf8_decode(s + b, at - b, before) < 0)
		*before = 0;
	if (at < len && av_utf8_decode(s + at, len - at, after) < 0)
		*after = 0;
}

/* A break inside a word at `at` moved back to where Chinese allows one
 * (av_line_may_break), but not back to from or before (then `at` stays:
 * the text must move on). */
static size_t allowed_break(const char *s, size_t len, size_t from, size_t at)
{
	size_t b = at;
	for (int tries = 0; tries < 4 && b > from; tries++) {
		uint32_t before, after;
		around(s, len, b, &before, &after);
		if (av_line_may_break(before, after))
			return b;
		b = from + av_utf8_previous(s + from, b - from);
	}
	return at;
}

/* Columns of the first len bytes of s. */
static int prefix_width(const char *s, size_t len, int (*measure)(const char *), char *buf)
{
	memcpy(buf, s, len);
	buf[len] = '\0';
	return measure(buf);
}

/* Columns of s[0..to), given those of s[0..from) (known): only the part
 * after from is measured, so that a line's scan measures each character
 * once instead of every prefix again (at 200 columns, the caption's wrap
 * was a tenth of a mask key's frame; issue 11). Columns add up at any
 * character boundary: a character's columns do not depend on its
 * neighbours. (A byte sequence cut off by the end of what is measured
 * counts as one "…" on screen; measured apart, its bytes count one each:
 * a line with such bytes in it may end sooner, never later.) */
static int width_after(const char *s, size_t from, int known, size_t to,
		       int (*measure)(const char *), char *buf)
{
	return known + prefix_width(s + from, to - from, measure, buf);
}

/* The longest run of whole words of s (len bytes) that fits width
 * columns, without its trailing spaces; 0 when the first word alone does
 * not fit. buf holds len + 1 bytes for measuring. */
static size_t whole_words(const char *s, size_t len, int width,
			  int (*measure)(const char *), char *buf)
{
	size_t best = 0, i = 0;
	int before = 0;   /* the columns of s[0..i) */
	for (;;) {
		size_t j = i;
		while (j < len && s[j] != ' ')
			j++;
		int cols = width_after(s, i, before, j, measure, buf);
		if (j > 0 && cols > width)
			break;
		if (j >= len || space_may_break(s, len, j))
			best = j;
		if (j >= len)
			break;
		before = width_after(s, j, cols, j + 1, measure, buf);
		i = j + 1;
	}
	while (best > 0 && s[best - 1] == ' ')
		best--;
	return best;
}

/* A formula line does not end in an operator ("… =" / "1.596"): the
 * operator starts the next line with its operand. Returns where the line
 * ends instead (best when its last word is no operator). */
static size_t before_operator(const char *s, size_t best)
{
	if (av_last_word_start(s, best) > 0 && av_last_word_is_operator(s, best))
		return av_without_last_word(s, best);
	return best;
}

/* The bytes of s from `from` on, up to end, that fit in width columns
 * with s[0..from) before them, whole characters only. */
static size_t characters_that_fit(const char *s, size_t len, size_t from, size_t end, int width,
				  int (*measure)(const char *), char *buf)
{
	size_t off = from;
	int cols = prefix_width(s, from, measure, buf);   /* of s[0..off) */
	while (off < end) {
		uint32_t cp;
		int k = av_utf8_decode(s + off, len - off, &cp);
		if (k < 0)
			k = 1;
		int more = width_after(s, off, cols, off + (size_t)k, measure, buf);
		if (more > width)
			break;
		cols = more;
		off += (size_t)k;
	}
	return off;
}

/* Whether a line may break between two characters of one word: beside a
 * wide (CJK) character, where Chinese allows it (av_line_may_break); never
 * inside a run of narrow ones, a Latin word or a number such as 12×4. */
static bool cjk_break(uint32_t before, uint32_t after)
{
	return (av_cp_is_wide(before) || av_cp_is_wide(after)) && av_line_may_break(before, after);
}

/* The first place after from, before end, where cjk_break allows a line
 * to break in s; end when there is none. */
static size_t next_cjk_break(const char *s, size_t len, size_t from, size_t end)
{
	uint32_t prev = 0;
	for (size_t off = from; off < end;) {
		uint32_t cp;
		int k = av_utf8_decode(s + off, len - off, &cp);
		if (k < 0) {
			k = 1;
			cp = 0;
		}
		/* not after a space inside a word: that is a space no line
		 * may end at (next_word), "8 个" */
		if (off > from && prev != ' ' && cjk_break(prev, cp))
			return off;
		prev = cp;
		off += (size_t)k;
	}
	return end;
}

/* The last cjk_break in the word s[from..end) where the line s[0..) still
 * fits width columns, or from when there is none. */
static size_t last_cjk_break(const char *s, size_t len, size_t from, size_t end, int width,
			     int (*measure)(const char *), char *buf)
{
	size_t found = from, measured = from;
	int cols = prefix_width(s, from, measure, buf);   /* of s[0..measured) */
	for (size_t at = next_cjk_break(s, len, from, end); at < end;
	     at = next_cjk_break(s, len, at, end)) {
		cols = width_after(s, measured, cols, at, measure, buf);
		measured = at;
		if (cols > width)
			break;
		found = at;
	}
	return found;
}

/* The word after from, spaces skipped: s[*w0..*w1), with the words after
 * it that no line may be broken before (space_may_break: "8 个相差"). */
static void next_word(const char *s, size_t len, size_t from, size_t *w0, size_t *w1)
{
	*w0 = from;
	while (*w0 < len && s[*w0] == ' ')
		(*w0)++;
	for (*w1 = *w0; *w1 < len && (s[*w1] != ' ' || !space_may_break(s, len, *w1)); (*w1)++)
		;
}

/* Chinese fills its lines: the word after the whole words that fit (best)
 * is begun on this line when it may break beside a CJK character, rather
 * than the line ending at a space after a short run ("第 2" / "行…") or a
 * word being cut inside its digits ("12" / "×4"). Returns the new end, or
 * best when that word offers no such break. */
static size_t fill_with_cjk(const char *s, size_t len, size_t best, int width,
			    int (*measure)(const char *), char *buf)
{
	size_t w0, w1;
	next_word(s, len, best, &w0, &w1);
	size_t at = last_cjk_break(s, len, w0, w1, width, measure, buf);
	return at > w0 ? at : best;
}

/* A word wider than any line (a long file name): begun on this line after
 * the whole words (best > 0), filling it, rather than on a line of its own
 * after a short one. Not a word that breaks beside a CJK character further
 * on ("panda_k)：只用…"): the next line breaks it there, where this one
 * would cut its Latin part ("panda_k" / ")：…"). Returns the new end, or
 * best. */
static size_t begin_long_word(const char *s, size_t len, size_t best, int width,
			      int (*measure)(const char *), char *buf)
{
	size_t w0, w1;
	next_word(s, len, best, &w0, &w1);
	if (w1 == w0 || prefix_width(s + w0, w1 - w0, measure, buf) <= width ||
	    next_cjk_break(s, len, w0, w1) < w1)
		return best;
	size_t off = characters_that_fit(s, len, w0, w1, width, measure, buf);
	return off > w0 ? allowed_break(s, len, w0, off) : best;
}

/* The first word alone is too wide: as many characters as fit (at least
 * one, so the text always moves on). */
static size_t cut_first_word(const char *s, size_t len, int width,
			     int (*measure)(const char *), char *buf)
{
	size_t w1 = 0;
	while (w1 < len && s[w1] != ' ')
		w1++;
	size_t off = characters_that_fit(s, len, 0, w1, width, measure, buf);
	if (off == 0 && w1 > 0) {
		uint32_t cp;
		int k = av_utf8_decode(s, len, &cp);
		off = k < 0 ? 1 : (size_t)k;
	}
	return off < len && s[off] != ' ' ? allowed_break(s, len, 0, off) : off;
}

size_t av_wrap_line(const char *s, int width, int (*measure)(const char *),
		    const char **next)
{
	size_t len = strlen(s);
	char *buf = av_malloc(len + 1);
	size_t best = whole_words(s, len, width, measure, buf);
	size_t filled = best < len ? fill_with_cjk(s, len, best, width, measure, buf) : best;
	if (filled != best) {
		best = filled;
	} else if (best < len) {
		best = before_operator(s, best);
		if (best > 0)
			best = begin_long_word(s, len, best, width, measure, buf);
	}
	if (best == 0 && len > 0)
		best = cut_first_word(s, len, width, measure, buf);
	free(buf);
	const char *rest = s + best;
	while (*rest == ' ')
		rest++;
	*next = rest;
	return best;
}

char *av_layout_hints(const char *hints, int width, int (*measure)(const char *))
{
	size_t len = hints ? strlen(hints) : 0;
	char *out = av_calloc(len + 1, 1);
	char *buf = av_malloc(len + 1);
	size_t kept = 0;
	for (size_t i = 0; i < len;) {
		/* the next group ends at two spaces (or the end) */
		const char *sep = strstr(hints + i, "  ");
		size_t end = sep ? (size_t)(sep - hints) : len;
		if (end > i && prefix_width(hints, end, measure, buf) <= width)
			kept = end;
		else if (end > i)
			break;
		i = end;
		while (i < len && hints[i] == ' ')
			i++;
	}
	memcpy(out, hints, kept);
	out[kept] = '\0';
	free(buf);
	return out;
}
