/* view_stage.c: the stepper, one stage at a time: the title with the
 * stage's formula and shapes, the stage's matrices as one heatmap (or the
 * tokens table), the legend and the inspector of the cell under the
 * cursor. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "ui/app.h"
#include "ui/widgets/draw.h"
#include "ui/widgets/heatmap.h"
#include "ui/widgets/inspector.h"
#include "ui/layout.h"
#include "ui/widgets/panels.h"
#include "util.h"

/* The parts the stepper draws: the stage's parts, and at the scores stage
 * on a wide screen the two factors first (Q_h · K_hᵀ = scores_h, seed
 * 001's figure) when the whole figure fits without paging: 120 columns
 * or more, and K_hᵀ's dh rows within the panel. */
static int stage_parts(const struct av_app *a, struct av_part parts[AV_MAX_PARTS + 2])
{
	int n = av_app_parts(a, parts);
	const struct av_trace *t = &a->s->trace;
	if (a->stage != AV_STAGE_SCORES || n != 1 || a->compact || !a->w_panel)
		return n;
	int width = getmaxx(a->w_panel), height = getmaxy(a->w_panel);
	int dh = t->head_dim, m = t->m;
	/* labels (at most 14) per part, cells of 6 at least, gaps of 4 */
	int need = 3 * 15 + (dh + 2 * m) * 6 + 2 * 4;
	if (width < 120 || need > width || dh + 2 > height - 2 || t->n + 2 > height - 2)
		return n;
	struct av_part scores = parts[0];
	av_ui_score_factors(t, a->head, parts);
	parts[2] = scores;
	parts[2].op = "=";
	return 3;
}

/* Columns of the factors drawn before the stage's parts (0 when none). */
static int factor_cols(const struct av_part *parts, int n)
{
	return n == 3 && parts[0].tensor == AV_T_Q_HEAD ? parts[0].cols + parts[1].cols : 0;
}

/* The cursor's column among the parts drawn. a->col counts the stage's
 * own parts (av_app_parts: what the pin, the export and the other views
 * see); the factors before them, when shown, have their own column
 * (hm.on_factor, hm.factor_col), so showing them moves nothing. */
static int shown_col(const struct av_app *a, int nf)
{
	return nf > 0 && a->hm.on_factor ? a->hm.factor_col : a->col + nf;
}

static void set_shown_col(struct av_app *a, int v, int nf)
{
	if (nf > 0 && v < nf) {
		a->hm.on_factor = true;
		a->hm.factor_col = v < 0 ? 0 : v;
	} else {
		a->hm.on_factor = false;
		a->col = v - nf;
	}
}

/* Rows of the tokens stage: the sentence's tokens, then the source's. */
static int token_count(const struct av_app *a)
{
	const struct av_trace *t = &a->s->trace;
	return t->tokens.n + (t->cfg.mode == AV_MODE_CROSS ? t->source_tokens.n : 0);
}

/* Which query and key the cursor is on, for the token strip and x. */
static void update_selection(struct av_app *a)
{
	const struct av_trace *t = &a->s->trace;
	bool cross = t->cfg.mode == AV_MODE_CROSS;
	a->sel_query = a->sel_key = -1;
	if (a->stage == AV_STAGE_TOKENS) {
		if (a->row < t->tokens.n) {
			a->sel_query = a->row;
			if (!cross)
				a->sel_key = a->row;
		} else {
			a->sel_key = a->row - t->tokens.n;
		}
		return;
	}
	struct av_part parts[AV_MAX_PARTS + 2];
	int n = stage_parts(a, parts);
	if (n == 0)
		return;
	int p, c;
	av_heatmap_locate(parts, n, shown_col(a, factor_cols(parts, n)), &p, &c);
	const struct av_part *part = &parts[p];
	if (part->row_axis == AV_AXIS_QUERY) {
		a->sel_query = a->row;
		if (!cross)
			a->sel_key = a->row;
	} else if (part->row_axis == AV_AXIS_KEY) {
		a->sel_key = a->row;
	}
	if (part->col_axis == AV_AXIS_KEY)
		a->sel_key = c;
}

static void clamp_cursor(struct av_app *a)
{
	if (a->stage == AV_STAGE_TOKENS) {
		a->hm.stage = AV_STAGE_TOKENS;
		a->hm.own_first = 0;
		int n = token_count(a);
		if (a->row >= n)
			a->row = n - 1;
		if (a->row < 0)
			a->row = 0;
		return;
	}
	/* the stage's own parts place the cursor; the factors are extra */
	struct av_part parts[AV_MAX_PARTS + 2];
	int n = av_app_parts(a, parts);
	if (n == 0)
		return;
	int own = 0, own_first = 0;
	while (own < n && !parts[own].own)
		own_first += parts[own++].cols;
	if (own == n)
		own = own_first = 0;
	if (a->hm.stage != (int)a->stage) {
		/* a new stage opens on its own result, not on its inputs, at
		 * the column the cursor had in the last stage's result */
		int offset = a->hm.stage == AV_STAGE_TOKENS ? 0 : a->col - a->hm.own_first;
		if (a->hm.stage < 0)
			offset = a->col;   /* back from another view (stage_key) */
		if (offset < 0)
			offset = 0;
		if (offset >= parts[own].cols)
			offset = parts[own].cols - 1;
		a->hm.stage = (int)a->stage;
		a->hm.scroll_col = 0;
		a->hm.on_factor = false;
		a->col = own_first + offset;
	}
	a->hm.own_first = own_first;
	int total = av_heatmap_total_cols(parts, n);
	if (a->col >= total)
		a->col = total - 1;
	if (a->col < 0)
		a->col = 0;
	n = stage_parts(a, parts);
	int nf = factor_cols(parts, n);
	if (nf == 0)
		a->hm.on_factor = false;
	else if (a->hm.factor_col >= nf)
		a->hm.factor_col = nf - 1;
	int p, c;
	av_heatmap_locate(parts, n, shown_col(a, nf), &p, &c);
	if (a->row >= parts[p].rows)
		a->row = parts[p].rows - 1;
	if (a->row < 0)
		a->row = 0;
}

/* The cursor on the stage's matrices, and the tokens under it. */
static void place_cursor(struct av_app *a)
{
	clamp_cursor(a);
	update_selection(a);
}

/* --- drawing ------------------------------------------------------------- */

/* --- the text around the figure --------------------------------------- */

/* Text for the caption under the figure: what did not fit whole in the
 * title, and the notes of the stage (filled by draw_title). */
struct caption {
	char *para[8 + AV_INSP_MAX_LINES];
	enum av_element el[8 + AV_INSP_MAX_LINES];   /* its colour */
	int n;
	int legend_at;   /* the colour legend stands before para[legend_at - 1]; 0: not here */
};

static void caption_add_as(struct caption *cap, char *text, enum av_element el)
{
	if (cap->n < (int)(sizeof(cap->para) / sizeof(cap->para[0]))) {
		cap->el[cap->n] = el;
		cap->para[cap->n++] = text;
	} else {
		free(text);
	}
}

static void caption_add(struct caption *cap, char *text)
{
	caption_add_as(cap, text, AV_EL_DIM);
}

/* text as paragraph `at` of cap, the later ones (and the legend) after it */
static void caption_insert(struct caption *cap, int at, char *text, enum av_element el)
{
	if (cap->n >= (int)(sizeof(cap->para) / sizeof(cap->para[0]))) {
		free(text);
		return;
	}
	memmove(&cap->para[at + 1], &cap->para[at], (size_t)(cap->n - at) * sizeof(cap->para[0]));
	memmove(&cap->el[at + 1], &cap->el[at], (size_t)(cap->n - at) * sizeof(cap->el[0]));
	cap->para[at] = text;
	cap->el[at] = el;
	cap->n++;
	if (cap->legend_at > at)
		cap->legend_at++;
}

static void caption_free(struct caption *cap)
{
	for (int i = 0; i < cap->n; i++)
		free(cap->para[i]);
	cap->n = 0;
}

/* Whether some query of t has every key hidden. */
static bool any_row_hidden(const struct av_trace *t)
{
	for (int i = 0; i < t->n; i++)
		if (t->row_hidden[i])
			return true;
	return false;
}

/* The stage's notes beyond its purpose: a row with every key hidden does
 * not sum to 1 (what attnview shows there, and what PyTorch would). */
static char *stage_note(const struct av_trace *t, enum av_stage st)
{
	if (st != AV_STAGE_SOFTMAX && st != AV_STAGE_CONTEXT && st != AV_STAGE_MASKED)
		return NULL;
	char rows[96] = "";
	int count = 0;
	for (int i = 0; i < t->n; i++) {
		if (!t->row_hidden[i])
			continue;
		char one[16];
		snprintf(one, sizeof(one), "%s%d", count ? ", " : "", i);
		if (strlen(rows) + strlen(one) + 1 < sizeof(rows))
			strcat(rows, one);
		count++;
	}
	if (!count)
		return NULL;
	return av_printf(P_("Row %s: every key hidden. attnview gives such a row weights 0 "
			    "(it sums to 0, not 1; its context row is 0). PyTorch gives 1/%d each "
			    "with masked_fill(−1e20) as the tutorials do, NaN with masked_fill(−inf).",
			    "Rows %s: every key hidden. attnview gives such a row weights 0 "
			    "(it sums to 0, not 1; its context row is 0). PyTorch gives 1/%d each "
			    "with masked_fill(−1e20) as the tutorials do, NaN with masked_fill(−inf).",
			    count), rows, t->m);
}

/* What a title row of room columns leaves out of text, which av_put_words
 * cuts there after a whole word: text from its first piece (pieces are
 * parted by two spaces or more: "output = concat(heads) · W_oᵀ;  residual
 * = output + X") that the row does not show whole (a piece's last ";" may
 * go), or all of text when even its first is cut; NULL when it fits. At
 * 60x20 the caption under the figure wrote the whole formula again under a
 * title that showed all but its "X". */
static const char *title_rest(const char *text, int room)
{
	if (av_text_width(text) <= room)
		return NULL;
	char *shown = av_cut_words(text, room);
	size_t shown_len = strlen(shown), more = strlen("…");
	if (shown_len >= more && !strcmp(shown + shown_len - more, "…"))
		shown_len -= more;
	free(shown);
	const char *piece = text;
	for (const char *p = text; (p = strstr(p, "  ")); p += strspn(p, " ")) {
		size_t end = (size_t)(p - text);
		if (end > 0 && strchr(";,", text[end - 1]))
			end--;
		else if (end >= 3 && (!strncmp(text + end - 3, "；", 3) ||
				      !strncmp(text + end - 3, "，", 3)))
			end -= 3;
		if (end > shown_len)
			break;
		piece = p + strspn(p, " ");
	}
	return piece;
}

/* The title: the stage's name and formula, then its shapes and purpose;
 * what does not fit whole there goes to the caption under the figure. */
static void draw_title(struct av_app *a, struct caption *cap)
{
	WINDOW *w = a->w_title;
	const struct av_trace *t = &a->s->trace;
	char *formula = av_insp_formula(t, a->stage, a->head);
	char *shapes = av_insp_shapes(t, a->stage, a->head);
	const char *name = _(av_ui_stage_titles[a->stage]);
	const char *purpose = _(av_ui_stage_purposes[a->stage]);
	if (a->stage == AV_STAGE_EMBEDDING && av_trace_is_model_layer(t))
		purpose = _("each token's vector, normalised before attention");
	/* a model's layer has no temperature to change (T = 1 as trained) */
	if (a->stage == AV_STAGE_SCALED && av_trace_is_model_layer(t))
		purpose = _("scores divided by √dk, the square root of the head width");
	/* a row with every key hidden gets weights 0 (the note below says
	 * so): "each row ... sums to 1" would not be true of it */
	if (a->stage == AV_STAGE_SOFTMAX && any_row_hidden(t))
		purpose = _("each row with a visible key turned into weights that sum to 1");
	int width = w ? getmaxx(w) : 0;
	const char *formula_rest = title_rest(formula, width - av_text_width(name) - 2);
	const char *shapes_rest = w && getmaxy(w) > 1 ? title_rest(shapes, width) : shapes;
	bool shapes_whole = !shapes_rest;
	bool purpose_whole = shapes_whole &&
			     av_text_width(shapes) + 4 + av_text_width(purpose) <= width;
	if (w) {
		werase(w);
		struct av_colors *c = &a->colors;
		int x = av_put(w, 0, 0, name, width, av_colors_el(c, AV_EL_TITLE));
		x += av_put(w, 0, x, "  ", width - x, A_NORMAL);
		/* cut after a whole word, never inside a number: "scores /
		 * 1.7…" of 1.732 read as another (the caption has it whole) */
		av_put_words(w, 0, x, formula, width - x, av_colors_el(c, AV_EL_FORMULA));
		if (getmaxy(w) > 1) {
			x = av_put_words(w, 1, 0, shapes, width, av_colors_el(c, AV_EL_DIM));
			if (purpose_whole) {
				x += av_put(w, 1, x, "  — ", width - x, av_colors_el(c, AV_EL_DIM));
				av_put(w, 1, x, purpose, width - x, av_colors_el(c, AV_EL_DIM));
			}
		}
	}
	if (formula_rest)
		caption_add(cap, av_strdup(formula_rest));
	if (shapes_rest)
		caption_add(cap, av_strdup(shapes_rest));
	if (!purpose_whole) {
		/* a phrase made a sentence: capitalised, and the language's full
		 * stop (Chinese takes "。", not ".") */
		char *capital = av_printf("%c%s", purpose[0] >= 'a' && purpose[0] <= 'z' ?
					  purpose[0] - 'a' + 'A' : purpose[0], purpose + 1);
		/* TRANSLATORS: %s is a stage's purpose, e.g. "How well each query
		 * matches each key", made a sentence in the caption; put your
		 * language's full stop. */
		caption_add(cap, av_printf(_("%s."), capital));
		free(capital);
	}
	char *note = stage_note(t, a->stage);
	if (note)
		caption_add(cap, note);
	free(formula);
	free(shapes);
}

/* Word-wraps text into rows y.. of w (at most `rows` rows, the last
 * ending in "…" when text is left) in attr; returns the rows used. */
static int draw_wrapped(WINDOW *w, int y, int x, int width, int rows, const char *text,
			attr_t attr)
{
	return av_put_wrapped(w, y, x, text, width, rows, attr);
}

/* Rows text takes when wrapped to width. */
static int wrapped_rows(const char *text, int width)
{
	int rows = 0;
	for (const char *p = text; *p; rows++) {
		const char *next;
		av_wrap_line(p, width, av_text_width, &next);
		p = next;
	}
	return rows;
}

/* Rows the caption's paragraphs from `from` on take at width. */
static int caption_rows_from(const struct caption *cap, int from, int width)
{
	int rows = 0;
	for (int i = from; i < cap->n; i++)
		rows += wrapped_rows(cap->para[i], width);
	return rows;
}

static void draw_legend_at(struct av_app *a, WINDOW *w, int y, const struct av_part *parts,
			   int n);

/* The caption in the panel's free rows under the figure (from row y),
 * one blank row between when they have room for it (place_inspector counts
 * that row as free: the inspector's numbers matter more than the blank);
 * paragraphs that do not fit whole are left out. The colour legend of
 * parts stands among them when the inspector lifted it (lift_legend). */
static void draw_caption(struct av_app *a, const struct caption *cap, int y,
			 const struct av_part *parts, int n)
{
	WINDOW *w = a->w_panel;
	if (!w || (cap->n == 0 && !cap->legend_at))
		return;
	int width = getmaxx(w) - 1, height = getmaxy(w);
	if (y + 1 + caption_rows_from(cap, 0, width) + (cap->legend_at ? 1 : 0) <= height)
		y += 1;
	for (int i = 0; i <= cap->n; i++) {
		if (cap->legend_at == i + 1) {
			/* the legend and the inspector's lines after it end in the
			 * last row, next to the rest of the inspector */
			int block = 1 + caption_rows_from(cap, i, width);
			if (y < height - block)
				y = height - block;
			if (y < height)
				draw_legend_at(a, w, y++, parts, n);
		}
		if (i == cap->n)
			break;
		int rows = wrapped_rows(cap->para[i], width);
		if (y + rows > height)
			break;
		y += draw_wrapped(w, y, 0, width, rows, cap->para[i],
				  av_colors_el(&a->colors, cap->el[i]));
	}
}

/* The first of forms (the longest first) that fits width columns whole,
 * else the last: a sentence cut at the edge, "not in th…", said nothing. */
static const char *first_that_fits(const char *const *forms, int n, int width)
{
	for (int i = 0; i < n - 1; i++)
		if (av_text_width(forms[i]) <= width)
			return forms[i];
	return forms[n - 1];
}

/* The note after a token's vocabulary row that fits width columns: out of
 * the vocabulary, a hidden key, or both, each as long as there is room
 * for ("*" as the tokens line marks the word, and its legend says). */
static void token_note(char *note, size_t size, bool oov, bool hidden, int width)
{
	const char *oov_forms[] = { _("not in the vocabulary: a row from the seed"),
				    _("not in the vocabulary"), "*" };
	/* TRANSLATORS: after a token of the tokens table whose key is hidden;
	 * "hidden" is its short form */
	const char *hidden_forms[] = { _("hidden key (x)"), _("hidden") };
	note[0] = '\0';
	for (int h = 0; h < (hidden ? 2 : 1); h++)
		for (int o = 0; o < (oov ? 3 : 1); o++) {
			/* TRANSLATORS: a token both out of the vocabulary and
			 * hidden: "not in the vocabulary; hidden key (x)" */
			snprintf(note, size, oov && hidden ? _("%s; %s") : "%s%s",
				 oov ? oov_forms[o] : "", hidden ? hidden_forms[h] : "");
			if (av_text_width(note) <= width)
				return;
		}
}

/* One row of the tokens table in the first `width` columns of row y. */
static void table_row(struct av_app *a, WINDOW *w, int y, int width, int i, bool source,
		      bool current)
{
	const struct av_trace *t = &a->s->trace;
	struct av_colors *c = &a->colors;
	const struct av_tokens *tk = source ? &t->source_tokens : &t->tokens;
	int id = source ? t->source_ids[i] : t->ids[i];
	bool oov = source ? t->source_oov[i] : t->oov[i];
	bool keys = source || t->cfg.mode != AV_MODE_CROSS;
	bool hidden = keys && t->key_hidden[i];
	attr_t base = current ? av_colors_el(c, AV_EL_CURSOR) : av_colors_el(c, AV_EL_NORMAL);
	char num[32];
	snprintf(num, sizeof(num), "%3d  ", i);
	int x = av_put(w, y, 0, num, width, current ? base : av_colors_el(c, AV_EL_LABEL));
	attr_t ta = current ? base : oov ? av_colors_el(c, AV_EL_OOV)
			  : hidden ? av_colors_el(c, AV_EL_MASKED) : base;
	av_put_pad(w, y, x, tk->text[i], 16, ta);
	x += 16;
	snprintf(num, sizeof(num), "%6d   ", id);
	x += av_put(w, y, x, num, width - x, base);
	char note[160];
	token_note(note, sizeof(note), oov, hidden, width - x);
	av_put(w, y, x, note, width - x, hidden ? av_colors_el(c, AV_EL_MASKED)
					   : av_colors_el(c, AV_EL_OOV));
}

/* Where the sentence from p ends: after ". " (or "!", "?"; or one ending
 * the text) or after a CJK full stop, which needs no space; else at the
 * text's end. */
static const char *sentence_end(const char *p)
{
	for (; *p; p++) {
		if ((*p == '.' || *p == '!' || *p == '?') && (p[1] == ' ' || p[1] == '\0'))
			return p + 1;
		if (!strncmp(p, "。", 3) || !strncmp(p, "！", 3) || !strncmp(p, "？", 3))
			return p + 3;
	}
	return p;
}

/* Draws text's first whole sentences that fit rows rows of width from row
 * y, never part of one: "…" would promise a rest this screen cannot show.
 * Returns the rows used (0: not even the first sentence fits). */
static int draw_sentences(WINDOW *w, int y, const char *text, int width, int rows,
			  attr_t attr)
{
	if (!text || rows <= 0)
		return 0;
	size_t fit = 0;
	for (const char *p = text; *p;) {
		const char *end = sentence_end(p);
		char *part = av_strndup(text, (size_t)(end - text));
		bool fits = av_wrapped_lines(part, width) <= rows;
		free(part);
		if (!fits)
			break;
		fit = (size_t)(end - text);
		for (p = end; *p == ' '; p++)
			;
	}
	if (fit == 0)
		return 0;
	char *part = av_strndup(text, fit);
	int used = av_put_wrapped(w, y, 0, part, width, rows, attr);
	free(part);
	return used;
}

/* Under the tokens table: in a lesson its own title (the steps' captions
 * are in the pane; the sample's description is the sample's, and showed
 * the china-panda lesson's blurb inside first-look); else the sample's
 * title and description, in Chinese where the interface is and the
 * sample has it. Each in whole sentences, as many as fit. */
static void draw_about(struct av_app *a, WINDOW *w, int y, int height)
{
	const struct av_sample *sm = &a->s->sample;
	struct av_colors *c = &a->colors;
	int width = getmaxx(w) - 1;
	bool zh = av_i18n_text_in_chinese();
	const char *lesson = av_lesson_ui_title(a);
	const char *title = lesson ? lesson : zh && sm->title_zh ? sm->title_zh : sm->title;
	const char *description = lesson ? NULL : zh && sm->description_zh ? sm->description_zh
									  : sm->description;
	y += draw_sentences(w, y, title, width, height - y, av_colors_el(c, AV_EL_LABEL));
	y += draw_sentences(w, y, description, width, height - y, av_colors_el(c, AV_EL_DIM));
	/* a learner alone never learned from the screen that lessons exist;
	 * not to a class (a student's account runs nothing else) */
	if (!lesson && !a->classroom && !a->restricted && !av_trace_is_model_layer(&a->s->trace))
		draw_sentences(w, y + 1, _("New to attention: attnview --lesson first-look is a "
					   "ten-minute guided tour; attnview --list-lessons lists "
					   "every lesson."),
			       width, height - y - 1, av_colors_el(c, AV_EL_DIM));
}

#define MORE_MARK_W 9   /* " ▼ more" at width - 8, with a space before it */

/* The tokens table's lines below its heading: the sentence's tokens and,
 * in cross mode, a source heading and the source's tokens. */
static int tokens_table_lines(const struct av_trace *t)
{
	return t->tokens.n + (t->cfg.mode == AV_MODE_CROSS ? 1 + t->source_tokens.n : 0);
}

/* The tokens table's line of the cursor: the sentence's tokens, then (in
 * cross mode) a heading line and the source's. */
static int tokens_cursor_line(const struct av_app *a)
{
	const struct av_trace *t = &a->s->trace;
	return a->row < t->tokens.n ? a->row : a->row + 1;
}

/* The first line the tokens table shows under its heading: from first
 * (where the last draw or Ctrl-D/Ctrl-U left it), moved only as far as
 * the cursor needs. */
static int tokens_first_line(const struct av_app *a, int first)
{
	int lines = tokens_table_lines(&a->s->trace);
	int cur_line = tokens_cursor_line(a);
	int body = getmaxy(a->w_panel) - 1;
	if (first > cur_line)
		first = cur_line;
	if (cur_line >= first + body)
		first = cur_line - body + 1;
	if (first > lines - body)
		first = lines - body;
	return first < 0 ? 0 : first;
}

static void draw_tokens_table(struct av_app *a)
{
	WINDOW *w = a->w_panel;
	const struct av_trace *t = &a->s->trace;
	struct av_colors *c = &a->colors;
	int width = getmaxx(w), height = getmaxy(w);
	werase(w);
	/* lines: 0 = heading; sentence rows; (cross) a source heading, source rows */
	int lines = tokens_table_lines(t);
	int cur_line = tokens_cursor_line(a);
	int body = height - 1;
	int first = tokens_first_line(a, a->hm.scroll_row);
	a->hm.scroll_row = first;
	bool more_below = first + body < lines;
	av_put(w, 0, 0, _("pos  token           vocab row"),
	       first > 0 ? width - MORE_MARK_W : width, av_colors_el(c, AV_EL_TITLE));
	for (int l = first, y = 1; l < lines && y < height; l++, y++) {
		/* the last row leaves "▼ more" its columns (a note ran under it) */
		int room = y == height - 1 && more_below ? width - MORE_MARK_W : width;
		if (l < t->tokens.n) {
			table_row(a, w, y, room, l, false, l == cur_line);
		} else if (l == t->tokens.n) {
			av_put(w, y, 0, _("source sentence (keys and values):"), room,
			       av_colors_el(c, AV_EL_TITLE));
		} else {
			int j = l - t->tokens.n - 1;
			table_row(a, w, y, room, j, true, l == cur_line);
		}
	}
	/* below the table, when there is room: the lesson's title and text */
	int y = 1 + lines - first + 1;
	if (first == 0 && y + 2 < height)
		draw_about(a, w, y, height);
	if (first > 0)
		av_put(w, 0, width - 8, av_draw_utf8() ? _("▲ more") : _("^ more"), 8,
		       av_colors_el(c, AV_EL_DIM));
	if (more_below)
		av_put(w, height - 1, width - 8, av_draw_utf8() ? _("▼ more") : _("v more"), 8,
		       av_colors_el(c, AV_EL_DIM));
}

/* Rows lines [from, to) of the inspector take at width. */
static int insp_rows(const struct av_insp *in, int from, int to, int width)
{
	int rows = 0;
	for (int i = from; i < to; i++)
		rows += wrapped_rows(in->line[i], width);
	return rows;
}

/* The inspector's lines from `from` on, each word-wrapped, in order, while
 * rows last; the lines that do not fit whole go to the caption (free rows
 * above). */
static void draw_insp_wrapped(struct av_app *a, const struct av_insp *in, int from,
			      int caption_free, struct caption *cap)
{
	WINDOW *w = a->w_insp;
	werase(w);
	int width = getmaxx(w) - 1, height = getmaxy(w), y = 0;
	int caption_width = a->w_panel ? getmaxx(a->w_panel) - 1 : width;
	struct av_colors *c = &a->colors;
	int i = from;
	bool cut = false;
	for (; i < in->n && y < height; i++) {
		int rows = wrapped_rows(in->line[i], width);
		if (y + rows > height) {
			/* the rest goes above when it fits there; else this line is
			 * cut to the rows left ("…"), and the rest is not shown
			 * (above it, it would read before the cell) */
			if (i > from && insp_rows(in, i, in->n, caption_width) <= caption_free)
				break;
			rows = height - y;
			cut = true;
		}
		y += draw_wrapped(w, y, 0, width, rows, in->line[i],
				  av_colors_el(c, i == 0 ? AV_EL_LABEL : AV_EL_NORMAL));
	}
	/* with lines above already (caption_free 0), the rest would read
	 * before them: it is not shown */
	for (; i < in->n && !cut && caption_free > 0; i++)
		caption_add(cap, av_strdup(in->line[i]));
}

/* How many of the inspector's first lines go above its rows_below rows:
 * those it needs, or as many as fit in the free rows under the figure
 * after `before` rows (the rest is cut in its rows, never put above its
 * start). */
static int lines_above(const struct av_app *a, const struct av_insp *in, int rows_below,
		       int before, int free_rows)
{
	int width = getmaxx(a->w_insp) - 1, caption_width = getmaxx(a->w_panel) - 1;
	int split = 0;
	while (split < in->n && insp_rows(in, split, in->n, width) > rows_below)
		split++;
	while (split > 0 && before + insp_rows(in, 0, split, caption_width) > free_rows)
		split--;
	return split;
}

/* The first row of line i of the inspector in the legend's row; returns a
 * copy of the rest of the line ("" when the row took it whole). */
static char *first_row_in_legend_row(struct av_app *a, const struct av_insp *in, int i)
{
	WINDOW *w = a->w_legend;
	int width = getmaxx(w) - 1;
	const char *rest;
	size_t len = av_wrap_line(in->line[i], width, av_text_width, &rest);
	char *row = av_printf("%.*s", (int)len, in->line[i]);
	werase(w);
	av_put(w, 0, 0, row, width, av_colors_el(&a->colors, i == 0 ? AV_EL_LABEL : AV_EL_NORMAL));
	free(row);
	return av_strdup(rest);
}

/* The inspector when its rows are too few and the colour legend can go up
 * to the rows under the figure: the legend goes there first, then the
 * lines that must go above, and the legend's row becomes the inspector's
 * first, so the legend reads before the cell at every height (the cell's
 * line stood above it at 80x17, below it at 80x18). */
static void lift_legend(struct av_app *a, const struct av_insp *in, int free_rows,
			struct caption *cap)
{
	int split = lines_above(a, in, getmaxy(a->w_insp) + 1, 1, free_rows);
	cap->legend_at = cap->n + 1;
	for (int i = 0; i < split; i++)
		caption_add_as(cap, av_strdup(in->line[i]), i == 0 ? AV_EL_LABEL : AV_EL_NORMAL);
	if (split == in->n) {
		werase(a->w_legend);
		draw_insp_wrapped(a, in, split, 0, cap);
		return;
	}
	struct av_insp after = *in;   /* line `split` without its first row */
	char *rest = first_row_in_legend_row(a, in, split);
	after.line[split] = rest;
	draw_insp_wrapped(a, &after, *rest ? split : split + 1, 0, cap);
	free(rest);
}

/* The inspector in its rows. When it needs more than it has (a lesson's
 * pane leaves two), its first lines go to the rows under the figure and
 * the rest stay in its rows, so it reads in order (the cell, then its
 * sum); it used to put its last lines there, above its first. The colour
 * legend goes up before them when there is room (lift_legend). */
/* The rows under the figure and its caption that the inspector may take.
 * The blank row under the figure counts: draw_caption leaves it out when
 * what goes there needs it (a line of the inspector was cut to "…", or
 * its numbers left out, beside it). */
static int free_rows_under(const struct av_app *a, const struct caption *cap)
{
	return a->stage != AV_STAGE_TOKENS && a->w_panel
		? getmaxy(a->w_panel) - a->hm.used_rows -
		  caption_rows_from(cap, 0, getmaxx(a->w_panel) - 1)
		: 0;
}

static void place_inspector(struct av_app *a, const struct av_insp *in, struct caption *cap)
{
	int width = getmaxx(a->w_insp) - 1, height = getmaxy(a->w_insp);
	int free_rows = free_rows_under(a, cap);
	if (insp_rows(in, 0, in->n, width) <= height) {
		draw_insp_wrapped(a, in, 0, free_rows, cap);
		return;
	}
	if (a->w_legend && free_rows > 0) {
		lift_legend(a, in, free_rows, cap);
		return;
	}
	/* no legend to keep before them: the first lines go above */
	int split = lines_above(a, in, height, 0, free_rows);
	for (int i = 0; i < split; i++)
		caption_add_as(cap, av_strdup(in->line[i]), i == 0 ? AV_EL_LABEL : AV_EL_NORMAL);
	draw_insp_wrapped(a, in, split, 0, cap);
}

/* The matrices the stage shows, for build_inspector */
struct stage_parts {
	const struct av_part *parts;
	int n;
};

/* The cursor's cell explained with its sums built to width columns
 * (an av_insp_builder; ctx is the stage's parts). */
static void build_inspector(struct av_app *a, const void *ctx, int width, struct av_insp *in)
{
	const struct stage_parts *sp = ctx;
	const struct av_part *parts = sp->parts;
	int n = sp->n;
	const struct av_trace *t = &a->s->trace;
	struct av_insp_bytes raw;
	if (a->stage == AV_STAGE_TOKENS && a->row < t->tokens.n && av_app_token_bytes(a, &raw)) {
		/* a model's piece: its bytes, its label only as the label */
		av_insp_piece(in, t, &raw, a->row, width);
	} else if (a->stage == AV_STAGE_TOKENS) {
		bool source = a->row >= t->tokens.n;
		av_insp_token(in, t, &a->s->params, source,
			      source ? a->row - t->tokens.n : a->row, width);
	} else {
		int p, c;
		av_heatmap_locate(parts, n, shown_col(a, factor_cols(parts, n)), &p, &c);
		struct av_insp_weights wts;
		av_app_insp_weights(a, &wts);
		av_insp_cell_weights(in, t, &a->s->params, &wts, &parts[p], a->head, a->row, c,
				     width);
	}
	av_insp_fit_heading(in, getmaxx(a->w_insp) - 1);
}

static void draw_inspector(struct av_app *a, const struct av_part *parts, int n,
			   struct caption *cap)
{
	if (!a->w_insp)
		return;
	struct av_insp in;
	/* sums and rows of numbers may take two or three rows when the
	 * inspector has them (they word-wrap at their " + "), and the rows
	 * its other lines leave free besides: a sum of 16 terms ended
	 * "… (+1 term)" above two blank rows at 120x40 */
	const struct stage_parts sp = { parts, n };
	int most = getmaxy(a->w_insp), least = av_app_inspector_lines(a);
	av_app_build_inspector(a, most, least, 0, build_inspector, &sp, &in);
	/* a sum cut where the free rows under the figure would hold it whole
	 * goes there (at 60x20 "… (3 terms)" stood under three blank rows);
	 * one still cut there stays as it was, the figure's rows kept */
	int spare = free_rows_under(a, cap);
	if (in.terms_left > 0 && spare > 0) {
		struct av_insp whole;
		av_app_build_inspector(a, most, least, spare, build_inspector, &sp, &whole);
		if (whole.terms_left == 0) {
			av_insp_free(&in);
			in = whole;
		} else {
			av_insp_free(&whole);
		}
	}
	place_inspector(a, &in, cap);
	av_insp_free(&in);
}

/* The colour legend in row y of w: its own window, or the rows under the
 * figure when the inspector's first lines go there (place_inspector). */
static void draw_legend_at(struct av_app *a, WINDOW *w, int y, const struct av_part *parts,
			   int n)
{
	const struct av_trace *t = &a->s->trace;
	if (a->stage == AV_STAGE_TOKENS) {
		const char *model[] = {
			_("every piece is in the model's vocabulary: no word is unknown"),
			_("every piece is in the model's vocabulary"), _("no word is unknown") };
		const char *oov[] = { _("* = not in the vocabulary (out-of-vocabulary word)"),
				      _("* = not in the vocabulary") };
		av_put(w, y, 0, av_trace_is_model_layer(t) ? first_that_fits(model, 3, getmaxx(w))
		       : first_that_fits(oov, 2, getmaxx(w)),
		       getmaxx(w), av_colors_el(&a->colors, AV_EL_DIM));
		return;
	}
	int p, c;
	av_heatmap_locate(parts, n, shown_col(a, factor_cols(parts, n)), &p, &c);
	bool any_hidden = false;
	for (size_t k = 0; k < (size_t)t->n * t->m && !any_hidden; k++)
		any_hidden = t->mask[k] == 0;
	bool maskable = false;
	for (int i = 0; i < n; i++)
		maskable |= parts[i].maskable;
	/* each matrix is shaded on its own scale: with more than one the
	 * legend names the cursor's (the residual reaches further than the
	 * output beside it) */
	int x = av_legend_draw(w, y, &a->colors, parts[p].kind, n > 1 ? parts[p].name : NULL,
			       av_part_range(t, &parts[p], NULL), maskable && any_hidden,
			       parts[p].masked_as_inf);
	/* a row with every key hidden: its weights are 0s, not 1/m (the
	 * caption and the inspector say more), when that fits whole */
	bool empty_row = false;
	for (int i = 0; i < t->n; i++)
		empty_row |= t->row_hidden[i];
	const char *note = av_draw_utf8() ? _("; an all-╳ row: 0s") : _("; an all-x row: 0s");
	if (empty_row && maskable && parts[p].kind == AV_PART_WEIGHTS &&
	    x + av_text_width(note) <= getmaxx(w))
		av_put(w, y, x, note, getmaxx(w) - x, av_colors_el(&a->colors, AV_EL_DIM));
}

static void draw_legend(struct av_app *a, const struct av_part *parts, int n)
{
	WINDOW *w = a->w_legend;
	if (!w)
		return;
	werase(w);
	draw_legend_at(a, w, 0, parts, n);
}

/* hm laid out over the stage's parts (n, the factors first) as the stepper
 * shows them: the drawn a->hm, and the layouts made without drawing (the
 * page keys, the classroom's origin). */
static void bind_heatmap(const struct av_app *a, struct av_heatmap *hm,
			 const struct av_part *parts, int n)
{
	hm->t = &a->s->trace;
	hm->parts = parts;
	hm->n_parts = n;
	hm->cur_row = a->row;
	hm->cur_col = shown_col(a, factor_cols(parts, n));
	hm->compact = a->compact;
	hm->lines = LINES;
	hm->projector = true;
}

/* What the stage means in plain words (stages.c), after the title's
 * paragraphs (the first `after` of cap), in rows that the figure, the
 * caption and the inspector leave free: a learner alone read "how well
 * each query matches each key" above six blank rows, and nowhere what a
 * query or a key is. Not in a lesson, whose caption tells it, nor on a
 * real model's layer. */
static void add_meaning(struct av_app *a, struct caption *cap, int after)
{
	const struct av_trace *t = &a->s->trace;
	const char *meaning = av_ui_stage_meanings[a->stage];
	if (a->stage == AV_STAGE_EMBEDDING && t->cfg.positional == AV_POS_NONE)
		meaning = av_ui_meaning_no_positions;
	if (a->stage == AV_STAGE_PROJECTION && t->cfg.mode == AV_MODE_CROSS)
		meaning = av_ui_meaning_cross_projection;
	if (!meaning || !a->w_panel || av_lesson_ui_title(a) || av_trace_is_model_layer(t))
		return;
	meaning = _(meaning);
	int width = getmaxx(a->w_panel) - 1;
	/* the blank row under the figure stays */
	int rows = a->hm.used_rows + 1 + caption_rows_from(cap, 0, width) +
		   (cap->legend_at ? 1 : 0) + wrapped_rows(meaning, width);
	if (rows <= getmaxy(a->w_panel))
		caption_insert(cap, after, av_strdup(meaning), AV_EL_DIM);
}

static void stage_draw(struct av_app *a)
{
	clamp_cursor(a);
	struct av_part parts[AV_MAX_PARTS + 2];
	int n = stage_parts(a, parts);
	struct caption cap = { .n = 0 };
	draw_title(a, &cap);
	int title_paragraphs = cap.n;
	if (a->stage == AV_STAGE_TOKENS || n == 0) {
		if (a->w_panel)
			draw_tokens_table(a);
	} else if (a->w_panel) {
		bind_heatmap(a, &a->hm, parts, n);
		a->hm.n_marks = av_lesson_ui_marks(a, &a->hm.marks);
		av_heatmap_draw(a->w_panel, &a->colors, &a->hm);
		a->row = a->hm.cur_row;
		set_shown_col(a, a->hm.cur_col, factor_cols(parts, n));
		a->page_cols = a->hm.last_col - a->hm.first_col + 1;
		a->hm.parts = NULL;
	}
	update_selection(a);
	draw_legend(a, parts, n);
	draw_inspector(a, parts, n, &cap);
	if (a->stage != AV_STAGE_TOKENS && n > 0) {
		add_meaning(a, &cap, title_paragraphs);
		draw_caption(a, &cap, a->hm.used_rows, parts, n);
	}
	caption_free(&cap);
}

/* --- keys ---------------------------------------------------------------- */

/* Moves the cursor by delta columns among the parts drawn. */
static void move_col(struct av_app *a, int delta)
{
	struct av_part parts[AV_MAX_PARTS + 2];
	int n = stage_parts(a, parts);
	int nf = factor_cols(parts, n);
	set_shown_col(a, shown_col(a, nf) + delta, nf);
}

/* Whether the matrices drawn last have no column off the screen (or the
 * stage has none): < and > would do nothing. */
static bool all_columns_shown(struct av_app *a)
{
	struct av_part parts[AV_MAX_PARTS + 2];
	int n = stage_parts(a, parts);
	return a->stage == AV_STAGE_TOKENS || n == 0 ||
	       (a->hm.first_col == 0 && a->hm.last_col >= av_heatmap_total_cols(parts, n) - 1);
}

/* ) and (: the cursor to the first column of the next matrix of the stage
 * (dir 1) or of the one before (-1), the view scrolled so that it starts
 * at the left, the row kept where that matrix has it (clamp_cursor). At
 * D = 512 > paged ten columns at a time at 80x24: output to residual took
 * 51 presses. At either end, and at the tokens, they say so. */
static bool to_matrix(struct av_app *a, int dir)
{
	struct av_matrix_keys keys = av_matrix_keys();
	struct av_part parts[AV_MAX_PARTS + 2];
	int n = a->stage == AV_STAGE_TOKENS ? 0 : stage_parts(a, parts);
	if (n == 0) {
		/* TRANSLATORS: %s and %s are the keys ( and ) */
		av_app_message(a, false, _("the tokens are a list, no matrix: %s and %s go from "
			       "matrix to matrix at the other stages"), keys.back, keys.on);
		return false;
	}
	int nf = factor_cols(parts, n);
	int p, c;
	av_heatmap_locate(parts, n, shown_col(a, nf), &p, &c);
	int target = p + dir;
	if (n == 1) {
		/* TRANSLATORS: %s is a matrix's name ("scores_h"), then the
		 * keys ( and ) */
		av_app_message(a, false, _("%s is the stage's one matrix: %s and %s go from "
			       "matrix to matrix where a stage shows more"),
			       parts[p].name, keys.back, keys.on);
		return false;
	}
	if (target >= n) {
		/* TRANSLATORS: %s is a matrix's name ("residual"), then the key ( */
		av_app_message(a, false, _("%s is the stage's last matrix: %s goes back"),
			       parts[p].name, keys.back);
		return false;
	}
	if (target < 0) {
		/* TRANSLATORS: %s is a matrix's name ("concat"), then the key ) */
		av_app_message(a, false, _("%s is the stage's first matrix: %s goes on"),
			       parts[p].name, keys.on);
		return false;
	}
	int start = 0;
	for (int i = 0; i < target; i++)
		start += parts[i].cols;
	/* the heatmap keeps this first column while the cursor is in view,
	 * and scrolls back only to fill room the last matrix leaves */
	a->hm.scroll_col = start;
	set_shown_col(a, start, nf);
	return true;
}

/* Ctrl-D and Ctrl-U: the view and the cursor a page of rows down (dir 1)
 * or up (-1), as less pages lines: with 64 tokens a matrix has more rows
 * than the screen, and j alone took 50 presses to reach the last. */
static void page_rows(struct av_app *a, int dir)
{
	int rows, total;
	if (a->stage == AV_STAGE_TOKENS || a->hm.total_rows <= 0) {
		total = tokens_table_lines(&a->s->trace);
		rows = a->w_panel ? getmaxy(a->w_panel) - 1 : 1;   /* under the heading */
	} else {
		total = a->hm.total_rows;
		rows = a->hm.last_row - a->hm.first_row + 1;
	}
	if (rows >= total) {
		av_app_message(a, false, _("every row is on the screen: Ctrl-D and Ctrl-U page "
			       "through matrices taller than it"));
		return;
	}
	if (rows < 1)
		rows = 1;
	a->hm.scroll_row += dir * rows;
	if (a->hm.scroll_row < 0)
		a->hm.scroll_row = 0;
	a->row += dir * rows;
	if (a->row < 0)
		a->row = 0;
}

static bool moves_cursor(enum av_action act)
{
	switch (act) {
	case AV_ACTION_LEFT: case AV_ACTION_RIGHT: case AV_ACTION_UP: case AV_ACTION_DOWN:
	case AV_ACTION_PAGE_LEFT: case AV_ACTION_PAGE_RIGHT:
	case AV_ACTION_PAGE_DOWN: case AV_ACTION_PAGE_UP:
	case AV_ACTION_NEXT_MATRIX: case AV_ACTION_PREV_MATRIX:
		return true;
	default:
		return false;
	}
}

static bool pages(enum av_action act)
{
	return act == AV_ACTION_PAGE_LEFT || act == AV_ACTION_PAGE_RIGHT ||
	       act == AV_ACTION_PAGE_DOWN || act == AV_ACTION_PAGE_UP ||
	       act == AV_ACTION_NEXT_MATRIX || act == AV_ACTION_PREV_MATRIX;
}

/* The page keys read the page the screen shows: a key read before the
 * next draw (one burst: n n > >) found the last stage's page, as wide
 * as its matrices allowed (one column at the embedding's pos_enc), and
 * paged by that. So the page is laid out first as stage_draw will lay it
 * out, without drawing it. */
static void lay_out_page(struct av_app *a)
{
	clamp_cursor(a);
	struct av_part parts[AV_MAX_PARTS + 2];
	int n = stage_parts(a, parts);
	if (!a->w_panel)
		return;
	if (a->stage == AV_STAGE_TOKENS || n == 0) {
		a->hm.scroll_row = tokens_first_line(a, a->hm.scroll_row);   /* as drawn */
		return;
	}
	bind_heatmap(a, &a->hm, parts, n);
	av_heatmap_place(a->w_panel, &a->hm);
	a->row = a->hm.cur_row;
	set_shown_col(a, a->hm.cur_col, factor_cols(parts, n));
	a->page_cols = a->hm.last_col - a->hm.first_col + 1;
	a->hm.parts = NULL;
}

static bool stage_key(struct av_app *a, int key, enum av_action act)
{
	if (pages(act) && !a->layout.too_small)
		lay_out_page(a);
	int page = a->page_cols > 1 ? a->page_cols : 1;
	/* a move read before the next draw (one burst: n n Right) starts
	 * where the new stage opens; it moved the last stage's column, and the
	 * opening's placement, at the draw, put the cursor back (the Right
	 * was lost) */
	if (moves_cursor(act))
		clamp_cursor(a);
	switch (act) {
	case AV_ACTION_LEFT:
	case AV_ACTION_RIGHT:
		if (a->stage == AV_STAGE_TOKENS) {
			/* a list, not a matrix: the move would be lost in silence */
			av_app_message(a, false, _("the tokens are a list: Up and Down (k j) move "
				       "along it"));
			return true;
		}
		move_col(a, act == AV_ACTION_LEFT ? -1 : 1);
		break;
	case AV_ACTION_UP: a->row--; break;
	case AV_ACTION_DOWN: a->row++; break;
	case AV_ACTION_PAGE_LEFT:
	case AV_ACTION_PAGE_RIGHT:
		if (all_columns_shown(a)) {
			av_app_message(a, false, _("every column is on the screen: < and > page "
				       "through matrices wider than it"));
			return true;
		}
		/* the view pages with the cursor, as in less or tig: the next
		 * columns, not one more at the edge (cols 0-9, then 10-19,
		 * where it showed 1-10) */
		a->hm.scroll_col += act == AV_ACTION_PAGE_LEFT ? -page : page;
		if (a->hm.scroll_col < 0)
			a->hm.scroll_col = 0;
		move_col(a, act == AV_ACTION_PAGE_LEFT ? -page : page);
		break;
	case AV_ACTION_NEXT_MATRIX:
	case AV_ACTION_PREV_MATRIX:
		if (!to_matrix(a, act == AV_ACTION_NEXT_MATRIX ? 1 : -1))
			return true;
		break;
	case AV_ACTION_PAGE_DOWN:
	case AV_ACTION_PAGE_UP:
		page_rows(a, act == AV_ACTION_PAGE_UP ? -1 : 1);
		break;
	case AV_ACTION_MASK_KEY:
		place_cursor(a);
		av_app_toggle_key(a, a->sel_key);
		return true;
	case AV_ACTION_PIN:
		/* y in the burst that opened the stage (G y): on the stage's
		 * own result first, as the draw puts the cursor; the pin reads
		 * the cursor's part (app.c's av_pin_stepper) */
		place_cursor(a);
		return false;
	case AV_ACTION_ALL_HEADS:
	case AV_ACTION_TRAIN:
		/* another view takes the cursor: its column becomes the one in
		 * the stage's own result (the heads view has no input parts),
		 * and coming back places it there again */
		clamp_cursor(a);
		a->col -= a->hm.own_first;
		if (a->col < 0)
			a->col = 0;
		a->hm.own_first = 0;
		a->hm.stage = -1;
		return false;
	default:
		return false;
	}
	if (a->col < 0)
		a->col = 0;
	place_cursor(a);
	a->dirty |= AV_DIRTY_MAIN | AV_DIRTY_TOKENS;
	(void)key;
	return true;
}

/* The windows were made anew (a resize, a lesson step, the caption pane
 * under the grid): the view keeps its first row and column, which name
 * cells, not screen places; the next draw moves it only as far as the
 * cursor needs on the new size (a teacher who resized lost the page). */
static void stage_resize(struct av_app *a)
{
	(void)a;
}

/* --- the view's origin, for the classroom -------------------------------- */

void av_stage_view_origin_from(const struct av_app *a, int scroll_row, int scroll_col,
			       int *row, int *col)
{
	struct av_part parts[AV_MAX_PARTS + 2];
	int n = stage_parts(a, parts);
	if (!a->w_panel) {
		/* no figure on the screen (too small): the scroll the keys left,
		 * within the cursor's reach */
		*row = scroll_row < 0 ? 0 : scroll_row > a->row ? a->row : scroll_row;
		*col = scroll_col < 0 ? 0 : scroll_col > a->col ? a->col : scroll_col;
		return;
	}
	if (a->stage == AV_STAGE_TOKENS || n == 0) {
		*row = tokens_first_line(a, scroll_row);
		*col = 0;
		return;
	}
	/* a copy laid out as stage_draw lays out a->hm, not drawn */
	struct av_heatmap hm = a->hm;
	int nf = factor_cols(parts, n);
	bind_heatmap(a, &hm, parts, n);
	hm.scroll_row = scroll_row;
	hm.scroll_col = scroll_col;
	hm.first_row = hm.first_col = 0;
	av_heatmap_place(a->w_panel, &hm);
	/* the factors drawn before the stage's parts show only when every
	 * column fits: then the view starts at column 0 */
	*row = hm.first_row;
	*col = hm.first_col > nf ? hm.first_col - nf : 0;
}

void av_stage_view_origin(const struct av_app *a, int *row, int *col)
{
	av_stage_view_origin_from(a, a->hm.scroll_row, a->hm.scroll_col, row, col);
}

void av_stage_view_set_origin(struct av_app *a, int row, int col)
{
	struct av_part parts[AV_MAX_PARTS + 2];
	int n = stage_parts(a, parts);
	a->hm.scroll_row = row;
	a->hm.scroll_col = col + factor_cols(parts, n);
}

const struct av_view av_view_stage = {
	.name = "stages",
	.hints = N_("? help  n/p stage  arrows cell  Tab head  a heads  m mask  e edit  t train  q quit"),
	.draw = stage_draw,
	.key = stage_key,
	.resize = stage_resize,
	.place_cursor = place_cursor,
};
