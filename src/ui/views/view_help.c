/* view_help.c: the help overlay, drawn from the action table (actions.h)
 * so it lists exactly the keys the screen obeys: in the training view its
 * own keymap and the main actions that still apply there. Two columns when
 * the terminal is wide enough; arrows scroll when it is not tall enough,
 * ^D and ^U (PgDn, PgUp) a page; any other key closes it. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "ui/actions.h"
#include "ui/app.h"
#include "ui/widgets/draw.h"
#include "util.h"

enum line_kind {
	LINE_GROUP, LINE_ACTION, LINE_TEXT, LINE_BLANK, LINE_TITLE, LINE_TRAIN,
	LINE_VIEW   /* a key of the view under the help (struct av_view_key) */
};

struct line {
	enum line_kind kind;
	int index;          /* group or action (LINE_TRAIN: a training action) */
	const struct av_view_key *key;   /* LINE_VIEW */
	char *text;         /* LINE_TEXT (owned) */
	const char *title;  /* LINE_TITLE */
};

#define MAX_VIEW_KEYS 24
#define MAX_LINES (AV_ACTION_COUNT + AV_TRAIN_COUNT + AV_GROUP_COUNT * 2 + MAX_VIEW_KEYS + 17)
#define KEYS_W 12

/* The editor's keys as wrapped text: "Enter: apply · Esc: cancel · ...". */
static int editor_lines(struct line *out, int max, int width)
{
	int n = 0;
	char buf[512] = "";
	for (int a = 1; a < AV_EDIT_COUNT && n < max; a++) {
		char *keys = av_keys_text(&av_edit_actions[a], true, "/");
		char item[160];
		snprintf(item, sizeof(item), "%s%s %s", buf[0] ? " · " : "", keys,
			 _(av_edit_actions[a].brief));
		free(keys);
		if (av_text_width(buf) + av_text_width(item) > width && buf[0]) {
			out[n].kind = LINE_TEXT;
			out[n++].text = av_strdup(buf);
			snprintf(buf, sizeof(buf), "%s", item + strlen(" · "));
		} else {
			strncat(buf, item, sizeof(buf) - strlen(buf) - 1);
		}
	}
	if (buf[0] && n < max) {
		out[n].kind = LINE_TEXT;
		out[n++].text = av_strdup(buf);
	}
	return n;
}

/* The training view's keys, then the main actions that work there too. */
static int build_train_lines(struct line *out)
{
	int n = 0;
	for (int a = 1; a < AV_TRAIN_COUNT; a++) {
		const char *title = a == AV_TRAIN_RUN ? _("Training (t, q or Esc: back)")
				    : a == AV_TRAIN_LR_UP ? _("Settings, before or during a run")
				    : a == AV_TRAIN_VOCAB ? _("What is shown") : NULL;
		if (title) {
			out[n].kind = LINE_TITLE;
			out[n++].title = title;
		}
		if (a == AV_TRAIN_LEAVE)
			continue;
		out[n].kind = LINE_TRAIN;
		out[n++].index = a;
	}
	/* the map's mark has no room in its legend on a small screen: said
	 * here, where it always is (the help scrolls) */
	const char *mark = av_train_last_step_mark();
	out[n].kind = LINE_TEXT;
	out[n++].text = av_strdup(mark + strspn(mark, " "));
	out[n].kind = LINE_TITLE;
	out[n++].title = _("Also here");
	for (int a = 1; a < AV_ACTION_COUNT; a++) {
		if (!av_action_in_train_view((enum av_action)a))
			continue;
		out[n].kind = LINE_ACTION;
		out[n++].index = a;
	}
	return n;
}

/* The keys the view under the help gives another meaning (the figures'
 * n is the next figure, not the next stage), before the table's. */
static int view_lines(const struct av_view *v, struct line *out)
{
	int n = 0;
	if (!v || !v->help_keys)
		return 0;
	out[n].kind = LINE_TITLE;
	out[n++].title = _(v->help_title);
	for (int i = 0; v->help_keys[i].help && i < MAX_VIEW_KEYS; i++) {
		out[n].kind = LINE_VIEW;
		out[n++].key = &v->help_keys[i];
	}
	return n;
}

static int build_lines(const struct av_view *v, struct line *out)
{
	int n = view_lines(v, out);
	for (int g = 0; g < AV_GROUP_COUNT; g++) {
		out[n].kind = LINE_GROUP;
		out[n++].index = g;
		for (int a = 1; a < AV_ACTION_COUNT; a++) {
			if (av_actions[a].group != (enum av_action_group)g)
				continue;
			out[n].kind = LINE_ACTION;
			out[n++].index = a;
		}
	}
	return n;
}

static void free_lines(struct line *l, int n)
{
	for (int i = 0; i < n; i++)
		free(l[i].text);
}

struct app_help_ctx {
	struct av_app *a;
	WINDOW *w;
	int y, x, width;
	const struct line *line;
};

static void draw_line(struct app_help_ctx *ctx)
{
	struct av_colors *c = &ctx->a->colors;
	const struct line *l = ctx->line;
	attr_t help = av_colors_el(c, AV_EL_HELP);
	switch (l->kind) {
	case LINE_GROUP:
		av_put_pad(ctx->w, ctx->y, ctx->x, _(av_action_group_titles[l->index]), ctx->width,
			   help | A_BOLD);
		break;
	case LINE_ACTION:
	case LINE_TRAIN: {
		const struct av_action_info *info = l->kind == LINE_TRAIN ?
			&av_train_actions[l->index] : &av_actions[l->index];
		char *keys = av_keys_text(info, true, " ");
		av_put_pad(ctx->w, ctx->y, ctx->x, keys, KEYS_W, help | A_BOLD);
		av_put_pad(ctx->w, ctx->y, ctx->x + KEYS_W + 1, _(info->help),
			   ctx->width - KEYS_W - 1, help);
		av_fill(ctx->w, ctx->y, ctx->x + KEYS_W, 1, help);
		free(keys);
		break;
	}
	case LINE_VIEW: {
		char *keys = l->key->keys ? av_strdup(l->key->keys)
			     : av_action_keys_text(l->key->action, true);
		av_put_pad(ctx->w, ctx->y, ctx->x, keys, KEYS_W, help | A_BOLD);
		av_put_pad(ctx->w, ctx->y, ctx->x + KEYS_W + 1, _(l->key->help),
			   ctx->width - KEYS_W - 1, help);
		av_fill(ctx->w, ctx->y, ctx->x + KEYS_W, 1, help);
		free(keys);
		break;
	}
	case LINE_TITLE:
		av_put_pad(ctx->w, ctx->y, ctx->x, l->title, ctx->width, help | A_BOLD);
		break;
	case LINE_TEXT:
		av_put_pad(ctx->w, ctx->y, ctx->x, l->text, ctx->width, help);
		break;
	case LINE_BLANK:
		av_fill(ctx->w, ctx->y, ctx->x, ctx->width, help);
		break;
	}
}

/* A frame in line-drawing characters (ASCII without UTF-8): drawn as text
 * rather than with the alternate character set, so every terminal and
 * tmux's capture-pane show the same thing. */
static void draw_box(WINDOW *w, attr_t a)
{
	int H = getmaxy(w), W = getmaxx(w);
	for (int x = 1; x < W - 1; x++) {
		av_put(w, 0, x, "─", 1, a);
		av_put(w, H - 1, x, "─", 1, a);
	}
	for (int y = 1; y < H - 1; y++) {
		av_put(w, y, 0, "│", 1, a);
		av_put(w, y, W - 1, "│", 1, a);
	}
	av_put(w, 0, 0, "┌", 1, a);
	av_put(w, 0, W - 1, "┐", 1, a);
	av_put(w, H - 1, 0, "└", 1, a);
	av_put(w, H - 1, W - 1, "┘", 1, a);
}

/* Where the key lines break into two columns, split as evenly as can be:
 * where a group starts, or inside one, whose title then starts the right
 * column again. */
struct help_split {
	int per_col;     /* lines in the left column */
	int col_rows;    /* rows the taller column takes */
	int cont;        /* 1: the right column starts with a repeated title */
	struct line cont_title;
};

static struct help_split split_columns(const struct line *lines, int n, bool two)
{
	struct help_split sp = { .per_col = n, .col_rows = n, .cont = 0,
				 .cont_title = { .kind = LINE_GROUP } };
	for (int i = 1; two && i < n; i++) {
		bool starts = lines[i].kind == LINE_GROUP || lines[i].kind == LINE_TITLE;
		int right = n - i + (starts ? 0 : 1);
		int worst = i > right ? i : right;
		if (worst < sp.col_rows) {
			sp.col_rows = worst;
			sp.per_col = i;
			sp.cont = starts ? 0 : 1;
		}
	}
	for (int i = sp.per_col - 1; sp.cont && i >= 0; i--) {
		if (lines[i].kind == LINE_GROUP || lines[i].kind == LINE_TITLE) {
			sp.cont_title = lines[i];
			sp.cont_title.text = NULL;
			break;
		}
	}
	return sp;
}

/* The overlay's window, W x H in the middle of the screen (made again
 * when its size or place changed); NULL when curses cannot make it. */
static WINDOW *help_window(struct av_app *a, int W, int H)
{
	int y0 = (LINES - H) / 2, x0 = (COLS - W) / 2;
	if (!a->w_overlay || getmaxx(a->w_overlay) != W || getmaxy(a->w_overlay) != H ||
	    getbegy(a->w_overlay) != y0 || getbegx(a->w_overlay) != x0) {
		if (a->w_overlay)
			delwin(a->w_overlay);
		a->w_overlay = newwin(H, W, y0, x0);
	}
	return a->w_overlay;
}

/* The reader's place, kept as the line at the top rather than a row: a
 * row counts lines of one layout (two columns, the editor's keys wrapped
 * to the width), and a resize through a size where the whole help fits
 * scrolled it to the top for good (80x24 scrolled down, 200x60, 80x24 again
 * showed the first page). A key line is its index in lines (the left
 * column's, where two columns share a row); the editor's heading and lines
 * are EDITOR_LINES + 0, 1, ... */
#define EDITOR_LINES MAX_LINES

static int line_at_row(int row, int n, const struct help_split *sp, bool two)
{
	if (row >= sp->col_rows)
		return EDITOR_LINES + row - sp->col_rows;
	if (two && row >= sp->per_col)   /* only the right column is this long */
		return sp->per_col + row - sp->cont < n ? sp->per_col + row - sp->cont : n - 1;
	return row;
}

static int row_of_line(int line, int n, const struct help_split *sp, bool two, int n_ed)
{
	if (line >= EDITOR_LINES)
		return sp->col_rows + (line - EDITOR_LINES <= n_ed ? line - EDITOR_LINES : n_ed);
	if (line >= n)
		line = n - 1;
	if (two && line >= sp->per_col)
		return line - sp->per_col + sp->cont;
	return line;
}

/* The body's rows from the scroll position: the key lines in one or two
 * columns, then the editor's heading and lines across the whole width. */
static void draw_help_rows(struct app_help_ctx *ctx, const struct line *lines, int n,
			   const struct help_split *sp, const struct line *ed, int n_ed,
			   int inner, int colw, bool two, int body)
{
	struct av_app *a = ctx->a;
	attr_t help = av_colors_el(&a->colors, AV_EL_HELP);
	for (int r = 0; r < body; r++) {
		int row = r + a->help_scroll;
		ctx->y = r + 1;
		if (row < sp->col_rows) {
			ctx->x = 1;
			ctx->width = colw;
			ctx->line = &lines[row];
			if (row < sp->per_col)
				draw_line(ctx);
			if (two && sp->per_col + row - sp->cont < n) {
				ctx->x = 2 + colw;
				ctx->width = inner - colw - 1;
				ctx->line = sp->cont && row == 0 ? &sp->cont_title
					    : &lines[sp->per_col + row - sp->cont];
				draw_line(ctx);
			}
		} else if (row == sp->col_rows && n_ed) {
			av_put_pad(ctx->w, ctx->y, 1, _("Editing a sentence (e, E); other keys type"),
				   inner, help | A_BOLD);
		} else if (row - sp->col_rows - 1 < n_ed) {
			ctx->x = 1;
			ctx->width = inner;
			ctx->line = &ed[row - sp->col_rows - 1];
			draw_line(ctx);
		}
	}
}

static void help_draw(struct av_app *a)
{
	int W = COLS < 84 ? COLS : 84, H = LINES;
	if (W < 20 || H < 5)
		return;
	int inner = W - 2;
	bool two = inner >= 2 * 36 + 1;
	int colw = two ? (inner - 1) / 2 : inner;
	struct line lines[MAX_LINES];
	memset(lines, 0, sizeof(lines));
	bool training = a->view == &av_view_train;
	int n = training ? build_train_lines(lines) : build_lines(a->view, lines);
	/* the editor's keys span the whole width below the columns */
	struct line ed[12];
	memset(ed, 0, sizeof(ed));
	int n_ed = training ? 0 : editor_lines(ed, 10, inner);
	struct help_split sp = split_columns(lines, n, two);

	/* as tall as the lines need, scrolled when the screen is shorter */
	int rows_needed = sp.col_rows + (n_ed ? 1 + n_ed : 0);   /* + the editor heading */
	if (rows_needed + 2 < H)
		H = rows_needed + 2;
	int body = H - 2;
	int max_scroll = rows_needed - body > 0 ? rows_needed - body : 0;
	a->help_max_scroll = max_scroll;
	a->help_page = body;
	/* the reader's line at the top, or as near it as this size lets
	 * (still in view); help_top itself is kept for the next size */
	if (a->help_top < 0)
		a->help_top = line_at_row(a->help_scroll, n, &sp, two);
	a->help_scroll = row_of_line(a->help_top, n, &sp, two, n_ed);
	if (a->help_scroll > max_scroll)
		a->help_scroll = max_scroll;
	if (a->help_scroll < 0)
		a->help_scroll = 0;

	WINDOW *w = help_window(a, W, H);
	if (w) {
		attr_t help = av_colors_el(&a->colors, AV_EL_HELP);
		av_clear(w, help);
		draw_box(w, help);
		av_put(w, 0, 2, _(" attnview keys "), W - 4, help | A_BOLD);
		const char *foot = max_scroll ? _(" Up/Down scroll, ^D/^U page · other keys close ")
					      : _(" any key closes ");
		if (av_text_width(foot) > W - 4)   /* 40 columns: it ran over the title */
			foot = _(" Up/Down ^D/^U · other keys close ");
		int fw = av_text_width(foot) < W - 4 ? av_text_width(foot) : W - 4;
		av_put(w, H - 1, W - 2 - fw, foot, fw, help);
		struct app_help_ctx ctx = { .a = a, .w = w };
		draw_help_rows(&ctx, lines, n, &sp, ed, n_ed, inner, colw, two, body);
	}
	free_lines(lines, n);
	free_lines(ed, n_ed);
}

static void close_help(struct av_app *a)
{
	if (a->w_overlay)
		delwin(a->w_overlay);
	a->w_overlay = NULL;
	a->overlay = NULL;
	av_app_touch_shared(a);   /* the regions under the overlay */
	a->dirty = AV_DIRTY_ALL;
}

/* The rows a page scrolls: the body's but one, which stays in view for
 * the eye to go on from. */
static int help_page(const struct av_app *a)
{
	return a->help_page > 2 ? a->help_page - 1 : 1;
}

static bool help_key(struct av_app *a, int key, enum av_action act)
{
	if (a->help_max_scroll == 0) {
		close_help(a);
		return true;
	}
	switch (act) {
	case AV_ACTION_UP:
		a->help_scroll--;
		break;
	case AV_ACTION_DOWN:
		a->help_scroll++;
		break;
	/* a page: the stepper's ^D and ^U (^F, ^B), and PgDn and PgUp, but
	 * not Space, n or p, which close it as any other key (a phone's
	 * keyboard has no PgDn: line by line, the help at 40x30 took a
	 * hundred presses of Down) */
	case AV_ACTION_PAGE_DOWN:
		a->help_scroll += help_page(a);
		break;
	case AV_ACTION_PAGE_UP:
		a->help_scroll -= help_page(a);
		break;
	case AV_ACTION_NEXT_STAGE:
		if (key == AV_FKEY(KEY_NPAGE)) {
			a->help_scroll += help_page(a);
			break;
		}
		close_help(a);
		return true;
	case AV_ACTION_PREV_STAGE:
		if (key == AV_FKEY(KEY_PPAGE)) {
			a->help_scroll -= help_page(a);
			break;
		}
		close_help(a);
		return true;
	default:
		close_help(a);
		return true;
	}
	if (a->help_scroll > a->help_max_scroll)
		a->help_scroll = a->help_max_scroll;
	if (a->help_scroll < 0)
		a->help_scroll = 0;
	a->help_top = -1;   /* the line now at the top, found when drawn */
	a->dirty |= AV_DIRTY_STATUS;   /* redraws the overlay */
	return true;
}

static void help_resize(struct av_app *a)
{
	if (a->w_overlay)
		delwin(a->w_overlay);
	a->w_overlay = NULL;
}

const struct av_view av_view_help = {
	.name = "help",
	.draw = help_draw,
	.key = help_key,
	.resize = help_resize,
};
