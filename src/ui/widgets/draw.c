/* draw.c: text by columns (see draw.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ui/layout.h"
#include "ui/widgets/draw.h"
#include "utf8.h"
#include "util.h"

static bool use_utf8 = true;
static long overflows;   /* writes past a window's edge (tests check it is 0) */

long av_draw_overflows(void)
{
	return overflows;
}

/* Counts a write of cols columns at (y, x) that does not fit w: curses
 * would wrap it onto the next line. */
static void check_fits(WINDOW *w, int y, int x, int cols)
{
	if (y < 0 || x < 0 || y >= getmaxy(w) || x + cols > getmaxx(w))
		overflows++;
}

void av_draw_set_utf8(bool utf8)
{
	use_utf8 = utf8;
}

bool av_draw_utf8(void)
{
	return use_utf8;
}

const char *av_ascii_for(unsigned cp)
{
	switch (cp) {
	case 0x00B7: case 0x22C5: case 0x2219: return ".";   /* middle dots */
	case 0x00D7: return "x";
	case 0x00F7: return "/";
	case 0x2212: case 0x2013: case 0x2014: return "-";   /* minus, dashes */
	case 0x221E: return "inf";
	case 0x221A: return "sqrt";
	case 0x03A3: case 0x2211: return "sum";
	case 0x1D40: return "^T";                 /* superscript T */
	case 0x2026: return "...";
	case 0x2192: return "->";
	case 0x2190: return "<-";
	case 0x2191: return "^";
	case 0x2193: return "v";
	case 0x25C0: case 0x25C2: return "<";
	case 0x25B6: case 0x25B8: return ">";
	case 0x25B2: return "^";
	case 0x25BC: return "v";
	case 0x2500: case 0x2501: return "-";
	case 0x2502: case 0x2503: return "|";
	case 0x250C: case 0x2510: case 0x2514: case 0x2518: case 0x253C: return "+";
	case 0x2588: return "#";
	case 0x2581: case 0x2582: return "_";
	case 0x2583: case 0x2584: case 0x2585: return "=";
	case 0x2586: case 0x2587: return "#";
	case 0x2591: return ":";                  /* the shades as theme.c's ramp */
	case 0x2592: return "%";
	case 0x2593: return "#";
	case 0x2573: return "x";                  /* the masked glyph */
	case 0x2022: return "*";
	case 0x2423: return "_";                  /* ␣, a model's space token */
	case 0x0394: return "diff";               /* Δ, a difference */
	case 0x00A7: return "sec.";               /* § of a tutorial */
	case 0x00B1: return "+-";
	case 0x2248: return "~";
	case 0x2264: return "<=";
	case 0x2265: return ">=";
	case 0x2260: return "!=";
	case 0x2018: case 0x2019: return "'";
	case 0x201C: case 0x201D: return "\"";
	}
	return NULL;
}

/* Calls emit(piece, bytes, columns) for each displayable piece of s. */
struct piece {
	const char *s;
	int len;
	int cols;
};

/* True when s (len bytes, the end of a text) is a character's first bytes
 * and nothing else: a fixed buffer (snprintf) cut the text's last
 * character short. It is drawn as "…" (the text goes on), not as "?", the
 * stand-in for a byte that is not UTF-8. */
static bool cut_short(const char *s, size_t len)
{
	int need = av_utf8_sequence_length((unsigned char)s[0]);
	if (need < 2 || len >= (size_t)need)
		return false;
	for (size_t i = 1; i < len; i++)
		if (!av_utf8_is_continuation((unsigned char)s[i]))
			return false;
	return true;
}

static bool next_piece(const char *s, size_t *off, size_t len, struct piece *p)
{
	if (*off >= len)
		return false;
	uint32_t cp;
	int k = av_utf8_decode(s + *off, len - *off, &cp);
	if (k < 0) {
		bool cut = cut_short(s + *off, len - *off);
		p->s = cut ? (use_utf8 ? "…" : ".") : "?";
		p->len = (int)strlen(p->s);
		p->cols = 1;
		*off = cut ? len : *off + 1;
		return true;
	}
	if (cp < 0x80) {
		p->s = s + *off;
		p->len = 1;
		p->cols = cp < 0x20 || cp == 0x7f ? 0 : 1;
		if (p->cols == 0) {
			p->s = "?";
			p->len = 1;
			p->cols = 1;
		}
	} else if (cp < 0xA0) {
		/* C1 controls (U+0080..U+009F): a terminal may act on them in
		 * UTF-8 too (U+009B is CSI), so they are shown, not sent */
		p->s = "?";
		p->len = 1;
		p->cols = 1;
	} else if (av_cp_invisible(cp)) {
		/* bidi controls (a terminal would reorder what follows them,
		 * utf8.h), zero-width and tag characters, the soft hyphen: not
		 * sent, and not dropped either ("ab?cd", not "abcd" for a token
		 * that is not abcd) */
		p->s = "?";
		p->len = 1;
		p->cols = 1;
	} else if (use_utf8) {
		p->s = s + *off;
		p->len = k;
		p->cols = av_cp_width(cp);
	} else {
		const char *a = av_ascii_for(cp);
		int w = av_cp_width(cp);
		if (a) {
			p->s = a;
			p->len = (int)strlen(a);
			p->cols = p->len;
		} else {
			p->s = w == 2 ? "??" : w == 0 ? "" : "?";
			p->len = w;
			p->cols = w;
		}
	}
	*off += (size_t)k;
	return true;
}

/* The length of s when it is printable ASCII only (bytes are columns, no
 * stand-ins), else -1. */
static int printable_ascii_len(const char *s)
{
	int n = 0;
	for (; s[n]; n++)
		if ((unsigned char)s[n] < 0x20 || (unsigned char)s[n] >= 0x7f)
			return -1;
	return n;
}

/* The characters of s into wc (at most max) when each takes one column as
 * it is (printable ASCII, and in UTF-8 every other printable character of
 * one column: "−0.759", "╳ 0", "+∞"), so a column is a character; returns
 * how many, or -1 (a stand-in, an invisible or wide character, more than
 * max). Outside UTF-8 non-ASCII has stand-ins. */
static int one_column_chars(const char *s, wchar_t *wc, int max)
{
	int ascii = printable_ascii_len(s);
	if (ascii >= 0) {
		if (ascii > max)
			return -1;
		for (int i = 0; i < ascii; i++)
			wc[i] = (wchar_t)(unsigned char)s[i];
		return ascii;
	}
	if (!use_utf8)
		return -1;
	size_t len = strlen(s), off = 0;
	int n = 0;
	while (off < len) {
		uint32_t cp;
		int k = av_utf8_decode(s + off, len - off, &cp);
		if (k < 0 || n == max || av_cp_invisible(cp) || av_cp_width(cp) != 1)
			return -1;
		wc[n++] = (wchar_t)cp;
		off += (size_t)k;
	}
	return n;
}

int av_text_width(const char *s)
{
	int ascii = printable_ascii_len(s);
	if (ascii >= 0)
		return ascii;
	size_t off = 0, len = strlen(s);
	struct piece p;
	int w = 0;
	while (next_piece(s, &off, len, &p))
		w += p.cols;
	return w;
}

#define AV_PUT_CELLS_MAX 256

/* n one-column characters wc at (y, x) in attr, as waddnstr would put
 * them there (the window's background merged in: its pair when attr has
 * none, and its attributes), but as one copy of n cells: a repaint at
 * 200x60 writes some ten thousand characters, and waddnstr renders each on
 * its own (issue 11). The cursor is not moved (nothing here reads it). */
static void put_cells(WINDOW *w, int y, int x, const wchar_t *wc, int n, attr_t attr)
{
	check_fits(w, y, x, n);
	if (n == 0)
		return;
	chtype bkgd = getbkgd(w);
	attr_t attrs = (attr & ~A_COLOR) | (bkgd & A_ATTRIBUTES & ~A_COLOR);
	short pair = (short)(PAIR_NUMBER(attr) ? PAIR_NUMBER(attr) : PAIR_NUMBER(bkgd));
	cchar_t cells[AV_PUT_CELLS_MAX];
	for (int i = 0; i < n; i++) {
		wchar_t one[2] = { wc[i], L'\0' };
		setcchar(&cells[i], one, attrs, pair, NULL);
	}
	mvwadd_wchnstr(w, y, x, cells, n);
}

int av_put(WINDOW *w, int y, int x, const char *s, int maxw, attr_t attr)
{
	if (maxw <= 0 || !s)
		return 0;
	wchar_t wc[AV_PUT_CELLS_MAX];
	int n = one_column_chars(s, wc, AV_PUT_CELLS_MAX);
	if (n >= 0 && n <= maxw) {
		put_cells(w, y, x, wc, n, attr);
		return n;
	}
	int total = av_text_width(s);
	bool cut = total > maxw;
	int limit = cut ? maxw - 1 : maxw;
	size_t off = 0, len = strlen(s);
	struct piece p;
	int used = 0;
	wmove(w, y, x);
	attr_t plain = attr & ~A_COLOR;
	short pair = (short)PAIR_NUMBER(attr);
	wattr_set(w, plain, pair, NULL);
	while (next_piece(s, &off, len, &p)) {
		if (used + p.cols > limit)
			break;
		if (p.len > 0)
			waddnstr(w, p.s, p.len);
		used += p.cols;
	}
	if (cut) {
		/* a wide (CJK) character that would straddle the last column is
		 * a space: the cut text takes exactly maxw columns, and nothing
		 * left from before shows in the gap */
		for (; used < limit; used++)
			waddch(w, ' ');
		waddstr(w, use_utf8 ? "…" : "~");
		used++;
	}
	wattr_set(w, A_NORMAL, 0, NULL);
	check_fits(w, y, x, used);
	return used;
}

void av_fill(WINDOW *w, int y, int x, int n, attr_t attr)
{
	if (n <= 0)
		return;
	check_fits(w, y, x, n);
	wmove(w, y, x);
	wattr_set(w, attr & ~A_COLOR, (short)PAIR_NUMBER(attr), NULL);
	for (int i = 0; i < n; i++)
		waddch(w, ' ');
	wattr_set(w, A_NORMAL, 0, NULL);
}

/* --- cut after a whole word ------------------------------------------------ */

/* The code point that ends s[0..len) and, in *start, where it begins. */
static uint32_t last_cp(const char *s, size_t len, size_t *start)
{
	size_t at = av_utf8_previous(s, len);
	uint32_t cp = 0xFFFD;
	if (av_utf8_decode(s + at, len - at, &cp) < 0)
		cp = 0xFFFD;
	*start = at;
	return cp;
}

/* Whether s[at] is inside a word: neither it nor the character before it
 * is a space, and neither is wide (CJK text may break beside one). */
static bool inside_word(const char *s, size_t at)
{
	size_t start;
	uint32_t before = last_cp(s, at, &start), after;
	if (!s[at] || av_utf8_decode(s + at, strlen(s + at), &after) < 0)
		return false;
	return before != ' ' && after != ' ' && !av_cp_is_wide(before) && !av_cp_is_wide(after);
}

/* Where the last word of s[0..len) begins: after a space or a wide (CJK)
 * character, which a line of Chinese may break beside; a wide character
 * at the end is a word of its own. */
static size_t last_word_start(const char *s, size_t len)
{
	size_t at = len, start;
	if (len > 0 && av_cp_is_wide(last_cp(s, len, &start)))
		return start;
	while (at > 0) {
		uint32_t cp = last_cp(s, at, &start);
		if (cp == ' ' || av_cp_is_wide(cp))
			break;
		at = start;
	}
	return at;
}

/* Whether the word s[from..to) is one of a title's operators beyond a
 * formula's (av_keep_before_ellipsis has those): "scaled_h →…" and
 * "self |…" leave them hanging. */
static bool title_operator(const char *s, size_t from, size_t to)
{
	static const char *const words[] = { "\xe2\x86\x92", "\xc3\xb7", "*",
					     "\xe2\x89\x88", "|", ">", "<" };
	return av_span_is_one_of(s + from, to - from, words, sizeof(words) / sizeof(words[0]));
}

/* Where the first bracket of s[0..len) that is still open begins, or len. */
static size_t open_bracket(const char *s, size_t len)
{
	static const uint32_t opens[] = { '(', '[', '{', 0xFF08, 0xFF3B, 0x3010, 0x300C };
	static const uint32_t closes[] = { ')', ']', '}', 0xFF09, 0xFF3D, 0x3011, 0x300D };
	size_t stack[32];
	int depth = 0;
	for (size_t off = 0; off < len;) {
		uint32_t cp;
		int k = av_utf8_decode(s + off, len - off, &cp);
		if (k < 0) {
			off++;
			continue;
		}
		for (size_t b = 0; b < sizeof(opens) / sizeof(opens[0]); b++) {
			if (cp == opens[b] && depth < 32)
				stack[depth++] = off;
			else if (cp == closes[b] && depth > 0)
				depth--;
		}
		off += (size_t)k;
	}
	return depth > 0 ? stack[0] : len;
}

/* Whether cp is a Chinese clause mark: ，；：、 */
static bool clause_mark(uint32_t cp)
{
	return cp == 0xFF0C || cp == 0xFF1B || cp == 0xFF1A || cp == 0x3001;
}

/* Where a Chinese clause mark (，；：、) ends s[0..len) but for at most
 * three characters after it ("：纵向查" of "纵向查询"), or len. */
static size_t cjk_clause_start(const char *s, size_t len)
{
	size_t at = len;
	for (int chars = 0; at > 0 && chars <= 3; chars++) {
		size_t start;
		uint32_t cp = last_cp(s, at, &start);
		if (chars > 0 && clause_mark(cp))
			return at;
		if (!av_cp_is_wide(cp))
			return len;
		at = start;
	}
	return len;
}

/* The bytes of s[0..len) to keep before a "…": what
 * av_keep_before_ellipsis keeps (no number, operator or "…" right before
 * it, no clause's comma), and for a title also without an open bracket
 * and what follows it, a Chinese clause mark, another operator, the
 * first word of a piece or a clause alone, or a Chinese word before a
 * number. */
static size_t before_more(const char *s, size_t len)
{
	for (;;) {
		size_t keep = av_keep_before_ellipsis(s, len, " ,;:");
		if (keep < len) {
			len = keep;
			continue;
		}
		if (len == 0)
			return 0;
		size_t bracket = open_bracket(s, len);
		if (bracket < len) {
			len = bracket;
			continue;
		}
		size_t start;
		uint32_t cp = last_cp(s, len, &start);
		if (clause_mark(cp)) {
			len = start;
			continue;
		}
		/* "；最…" of "；最高的柱…", "：纵向查…": a Chinese clause's
		 * first characters alone */
		size_t mark = cjk_clause_start(s, len);
		if (mark < len) {
			len = mark;
			continue;
		}
		size_t word = last_word_start(s, len);
		/* "head…" of "…;  head 0 = cols 0..2", "z…" of "…; z: numbers":
		 * a piece's or a clause's first word alone; there or at the
		 * start, a name whose "=" is cut off ("weights…" of "weights =
		 * …", "D…" of "weights, D = 3") */
		const char *rest = s + len + strspn(s + len, " ");
		bool named = rest[0] == '=' && (rest[1] == ' ' || rest[1] == '\0');
		bool after = word >= 2 && s[word - 1] == ' ';
		size_t before_at;
		uint32_t before = word > 0 ? last_cp(s, word, &before_at) : 0;
		bool first = (after && (s[word - 2] == ' ' || s[word - 2] == ';')) ||
			     before == 0xFF1B || before == 0xFF0C;   /* "；a…", "，z…" */
		bool stub = first || (named && (word == 0 || (after && s[word - 2] == ',')));
		/* "= 第…" of "= 第 0..2 列": a Chinese word that goes with the
		 * number after it */
		bool with_number = av_cp_is_wide(cp) && rest[0] >= '0' && rest[0] <= '9';
		if (title_operator(s, word, len) || stub || with_number) {
			len = word;
			continue;
		}
		return len;
	}
}

char *av_cut_words(const char *s, int cols)
{
	if (av_text_width(s) <= cols)
		return av_strdup(s);
	const char *more = "…";
	int room = cols - av_text_width(more);
	if (room <= 0)
		return av_strdup("");
	const char *next;
	size_t len = av_wrap_line(s, room, av_text_width, &next);
	/* a word wider than the line is broken inside: not shown at all */
	while (len > 0 && inside_word(s, len))
		last_cp(s, len, &len);
	len = before_more(s, len);
	if (len == 0)
		return av_strdup("");
	return av_printf("%.*s%s", (int)len, s, more);
}

int av_put_words(WINDOW *w, int y, int x, const char *s, int maxw, attr_t attr)
{
	char *cut = av_cut_words(s, maxw);
	int used = av_put(w, y, x, cut, maxw, attr);
	free(cut);
	return used;
}

void av_put_pad(WINDOW *w, int y, int x, const char *s, int width, attr_t attr)
{
	int used = av_put(w, y, x, s, width, attr);
	av_fill(w, y, x + used, width - used, attr);
}

/* s right-aligned in width columns, padded with spaces in attr: one copy
 * of cells when its characters take a column each (a matrix cell's
 * number, see av_put), else av_fill and av_put. */
void av_put_right(WINDOW *w, int y, int x, const char *s, int width, attr_t attr)
{
	wchar_t wc[AV_PUT_CELLS_MAX], cells[AV_PUT_CELLS_MAX];
	int n = one_column_chars(s, wc, AV_PUT_CELLS_MAX);
	if (n >= 0 && n <= width && width <= AV_PUT_CELLS_MAX) {
		int pad = width - n;
		for (int i = 0; i < pad; i++)
			cells[i] = L' ';
		memcpy(cells + pad, wc, (size_t)n * sizeof(wchar_t));
		put_cells(w, y, x, cells, width, attr);
		return;
	}
	int tw = av_text_width(s);
	if (tw >= width) {
		av_put(w, y, x, s, width, attr);
		return;
	}
	av_fill(w, y, x, width - tw, attr);
	av_put(w, y, x + width - tw, s, tw, attr);
}

void av_clear(WINDOW *w, attr_t attr)
{
	wbkgdset(w, ' ' | (attr & ~A_COLOR) | COLOR_PAIR(PAIR_NUMBER(attr)));
	werase(w);
	wbkgdset(w, ' ');
}
