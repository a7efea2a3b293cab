/* test_i18n.c: the screen in Chinese. A wide (CJK) character never
 * straddles the last column a text may take; with the build tree's zh_CN
 * catalogue the key table's help texts, the stage titles and the hints fit
 * the columns the layout gives them at 80x24. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "i18n.h"
#include "ui_harness.h"
#include "follow/snapshot.h"
#include "ui/actions.h"
#include "ui/prompt.h"
#include "ui/widgets/draw.h"
#include "ui/widgets/panels.h"
#include "ui/stages.h"

static bool utf8;

/* Row y without its trailing blanks. */
static const char *row(int y)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf), "%s", harness_line(y));
	size_t n = strlen(buf);
	while (n > 0 && buf[n - 1] == ' ')
		buf[--n] = '\0';
	return buf;
}

/* A cut after two wide characters whose third does not fit: a space, then
 * the ellipsis, and the column after it is the old text, untouched. */
static void test_wide_character_cut_by_a_space(void **state)
{
	(void)state;
	if (!utf8)
		skip();
	struct harness h = { 0 };
	harness_screen(&h, "xterm-256color", 20, 3);
	long before = av_draw_overflows();
	av_put(stdscr, 0, 0, "XXXXXXXXXXXXXXXXXXXX", 20, A_NORMAL);
	/* 中国人民 is 8 columns; in 8 the cut leaves 7 before the "…": 中国人 is
	 * 6, 民 would take the 7th and the 8th */
	int used = av_put(stdscr, 0, 0, "中国人民很好", 8, A_NORMAL);
	wrefresh(stdscr);
	assert_int_equal(used, 8);
	assert_string_equal(row(0), "中国人 …XXXXXXXXXXXX");
	/* exactly fitting: no space, no straddle */
	used = av_put(stdscr, 1, 0, "中国人民很好", 7, A_NORMAL);
	wrefresh(stdscr);
	assert_int_equal(used, 7);
	assert_string_equal(row(1), "中国人…");
	/* the window's last column: a text cut to the window never wraps */
	av_put(stdscr, 2, 15, "ab中文字", 5, A_NORMAL);
	wrefresh(stdscr);
	assert_string_equal(row(2), "               ab中…");
	assert_int_equal(av_draw_overflows(), before);
	harness_close(&h);
}

/* A bidirectional control in a sentence (U+202E, right-to-left override)
 * is not sent: a terminal that reorders right-to-left text would show the
 * numbers after it reversed. Nor is it dropped: like the other invisible
 * characters (zero-width space, soft hyphen, tag characters) it is a "?",
 * so "a<U+202E>b" does not read as the token "ab". A combining accent is
 * not invisible (it marks the letter before it) and is still sent. */
static void test_bidi_controls_not_sent(void **state)
{
	(void)state;
	if (!utf8)
		skip();
	struct harness h = { 0 };
	harness_screen(&h, "xterm-256color", 20, 3);
	int used = av_put(stdscr, 0, 0, "a\xe2\x80\xae" "1.25 \xe2\x81\xa7x\xe2\x81\xa9", 20, A_NORMAL);
	av_put(stdscr, 1, 0, "e\xcc\x81", 20, A_NORMAL);
	av_put_right(stdscr, 2, 0, "a\xe2\x80\x8b" "b\xc2\xad" "c\xf3\xa0\x81\x81", 9, A_NORMAL);
	wrefresh(stdscr);
	assert_int_equal(used, 10);
	assert_string_equal(row(0), "a?1.25 ?x?");
	assert_string_equal(row(1), "e\xcc\x81");
	assert_string_equal(row(2), "   a?b?c?");
	assert_int_equal(av_text_width("a\xe2\x80\xae" "b"), 3);
	harness_close(&h);
}

/* A text whose last character a fixed buffer cut short (snprintf counts
 * bytes) ends in "…"; a byte that is not UTF-8 anywhere else is a "?". */
static void test_cut_last_character(void **state)
{
	(void)state;
	if (!utf8)
		skip();
	struct harness h = { 0 };
	harness_screen(&h, "xterm-256color", 20, 3);
	av_put(stdscr, 0, 0, "ab\xc3", 20, A_NORMAL);        /* é's first byte */
	av_put(stdscr, 1, 0, "中\xe6\x96", 20, A_NORMAL);   /* 2 of 文's 3 */
	av_put(stdscr, 2, 0, "a\xc3" "b\xff", 20, A_NORMAL);
	wrefresh(stdscr);
	assert_string_equal(row(0), "ab…");
	assert_string_equal(row(1), "中…");
	assert_string_equal(row(2), "a?b?");
	/* a C1 control (U+009B, CSI on some terminals) is not sent */
	av_put(stdscr, 0, 0, "x\xc2\x9b" "2Jy", 20, A_NORMAL);
	wrefresh(stdscr);
	assert_string_equal(row(0), "x?2Jy");
	assert_int_equal(av_text_width("ab\xc3"), 3);
	assert_int_equal(av_text_width("\xf0\x9f\x98"), 1);
	harness_close(&h);
}

/* A wrapped text longer than its rows ends in whole words and "…", not in
 * a cut word ("Step throug…" in a lesson's first step). */
static void test_wrapped_ends_in_words(void **state)
{
	(void)state;
	if (!utf8)
		skip();
	struct harness h = { 0 };
	harness_screen(&h, "xterm-256color", 20, 3);
	int used = av_put_wrapped(stdscr, 0, 0, "learned positions. Step through the stages",
				  20, 2, A_NORMAL);
	wrefresh(stdscr);
	assert_int_equal(used, 2);
	assert_string_equal(row(0), "learned positions.");
	assert_string_equal(row(1), "Step through the…");
	harness_close(&h);
}

/* A cut row's "…" never follows a "…" of the text or an operator: a sum
 * whose terms were left out read "b_q[0] = ……" at 40 columns (QA). */
static void test_wrapped_no_double_ellipsis(void **state)
{
	(void)state;
	if (!utf8)
		skip();
	struct harness h = { 0 };
	harness_screen(&h, "xterm-256color", 20, 3);
	av_put_wrapped(stdscr, 0, 0, "alpha beta = … (+510 terms)", 16, 1, A_NORMAL);
	av_put_wrapped(stdscr, 1, 0, "alpha beta + … (+510 terms)", 16, 1, A_NORMAL);
	wrefresh(stdscr);
	assert_string_equal(row(0), "alpha beta…");
	assert_string_equal(row(1), "alpha beta…");
	harness_close(&h);
}

/* A cut row's "…" never stands right after a digit, where it reads as a
 * longer number ("= 0.0001019…" of 0.0001019 / 1.2609, QA); a line that
 * ends in "= result" keeps it whole, the words before it left out. */
static void test_wrapped_cut_after_no_number(void **state)
{
	(void)state;
	if (!utf8)
		skip();
	struct harness h = { 0 };
	harness_screen(&h, "xterm-256color", 24, 3);
	const char *sum = "w = exp(0.1528 − 9.3446) / 1.2609 = 0.0001019 / 1.2609 = 8.08e-05";
	av_put_wrapped(stdscr, 0, 0, sum, 22, 2, A_NORMAL);
	av_put_wrapped(stdscr, 2, 0, "exp: 1.0000 0.2608 2.216e-06", 20, 1, A_NORMAL);
	wrefresh(stdscr);
	assert_string_equal(row(0), "w = exp(0.1528");
	assert_string_equal(row(1), "− 9.3446) … = 8.08e-05");
	assert_string_equal(row(2), "exp:…");
	werase(stdscr);
	av_put_wrapped(stdscr, 0, 0, "1.0000 0.2608 2.216e-06 0.5", 16, 1, A_NORMAL);
	av_put_wrapped(stdscr, 1, 0, "x = 0.0001019 / 1.2609 = 8.08e-05 (rounded)", 24, 1,
		       A_NORMAL);
	wrefresh(stdscr);
	assert_string_equal(row(0), "1.0000 0.2608 …");
	assert_string_equal(row(1), "x … = 8.08e-05 (rounded)");
	/* a name before the "=" says what the result is */
	werase(stdscr);
	av_put_wrapped(stdscr, 0, 0, "exp: [0.1] 1.0 0.26 2.2e-06  Σ = 1.2609", 20, 1, A_NORMAL);
	wrefresh(stdscr);
	assert_string_equal(row(0), "exp: … Σ = 1.2609");
	harness_close(&h);
}

/* av_put_pad keeps the columns after a cut wide character padded. */
static void test_pad_after_wide_cut(void **state)
{
	(void)state;
	if (!utf8)
		skip();
	struct harness h = { 0 };
	harness_screen(&h, "xterm-256color", 12, 1);
	av_put(stdscr, 0, 0, "XXXXXXXXXXXX", 12, A_NORMAL);
	av_put_pad(stdscr, 0, 0, "注意力权重", 6, A_NORMAL);
	wrefresh(stdscr);
	assert_string_equal(row(0), "注意 …XXXXXX");
	harness_close(&h);
}

/* The catalogue of the build tree, in Chinese; false (the test skips) when
 * there is none (configure --disable-nls, no msgfmt, no zh_CN locale). */
static bool chinese(void)
{
#if defined(ENABLE_NLS) && ENABLE_NLS
	if (!setlocale(LC_ALL, "zh_CN.UTF-8"))
		return false;
	bindtextdomain(PACKAGE, AV_BUILDDIR "/locale");
	bind_textdomain_codeset(PACKAGE, "UTF-8");
	textdomain(PACKAGE);
	return strcmp(_("next stage"), "next stage") != 0;
#else
	return false;
#endif
}

static void english(void)
{
	setlocale(LC_ALL, "C.UTF-8");
}

/* Row y + offset, into line, of the screen in Chinese at cols x rows with
 * sample ("": the default) after keys (NULL: none), y the row that holds
 * find (NULL: the top row); then English again and the screen closed. The
 * test skips without the catalogue and fails, the screen dumped, when find
 * is nowhere on it. */
static void chinese_row(int cols, int rows, const char *sample, const char *keys,
			const char *find, int offset, char *line, size_t size)
{
	if (!chinese())
		skip();
	struct harness h;
	assert_true(harness_open(&h, "xterm-256color", cols, rows, sample, NULL, -1, NULL));
	if (keys)
		harness_keys(&h, keys);
	int y = find ? harness_find(find) : 0;
	if (y < 0 || y + offset < 0)
		harness_dump();
	else
		snprintf(line, size, "%s", row(y + offset));
	english();
	harness_close(&h);
	if (y < 0 || y + offset < 0)
		fail_msg("\"%s\" is not on the screen, with a row %d from it", find, offset);
}

/* The help overlay gives a key's help text 25 columns at 80x24 (two
 * columns of 38 minus 12 for the keys and a space). */
static void test_help_texts_fit(void **state)
{
	(void)state;
	if (!chinese())
		skip();
	int bad = 0;
	for (int a = 1; a < AV_ACTION_COUNT; a++) {
		const char *t = _(av_actions[a].help);
		if (av_text_width(t) > 25) {
			fprintf(stderr, "too wide (%d > 25): %s -> %s\n", av_text_width(t),
				av_actions[a].help, t);
			bad++;
		}
	}
	for (int a = 1; a < AV_TRAIN_COUNT; a++) {
		const char *t = _(av_train_actions[a].help);
		if (av_text_width(t) > 25) {
			fprintf(stderr, "too wide (%d > 25): %s -> %s\n", av_text_width(t),
				av_train_actions[a].help, t);
			bad++;
		}
	}
	/* the keys a view gives a meaning of its own, listed first there */
	const struct av_view *views[] = { &av_view_figures, &av_view_model, &av_view_compare };
	for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
		for (const struct av_view_key *k = views[v]->help_keys; k && k->help; k++) {
			const char *t = _(k->help);
			if (av_text_width(t) > 25 || av_text_width(k->help) > 25) {
				fprintf(stderr, "too wide: %s -> %s\n", k->help, t);
				bad++;
			}
		}
		if (av_text_width(_(views[v]->help_title)) > 38) {
			fprintf(stderr, "view title too wide: %s\n", _(views[v]->help_title));
			bad++;
		}
	}
	for (int g = 0; g < AV_GROUP_COUNT; g++) {
		const char *t = _(av_action_group_titles[g]);
		if (av_text_width(t) > 38) {
			fprintf(stderr, "group title too wide: %s\n", t);
			bad++;
		}
	}
	english();
	assert_int_equal(bad, 0);
}

/* A translated label is never wider than its English one where the English
 * was sized for 80 columns: the stage titles (the header reserves the widest)
 * and each stage's purpose line. */
static void test_stage_titles_fit(void **state)
{
	(void)state;
	if (!chinese())
		skip();
	int bad = 0;
	for (int s = 0; s < AV_STAGE_COUNT; s++) {
		const char *en = av_ui_stage_titles[s], *zh = _(en);
		if (av_text_width(zh) > av_text_width(en) + 2) {
			fprintf(stderr, "stage title wider: %s -> %s\n", en, zh);
			bad++;
		}
		en = av_ui_stage_purposes[s];
		zh = _(en);
		if (av_text_width(zh) > av_text_width(en)) {
			fprintf(stderr, "stage purpose wider: %s -> %s\n", en, zh);
			bad++;
		}
	}
	english();
	assert_int_equal(bad, 0);
}

/* At 12x4 in Chinese the size stays whole on its line ("12×4"): it was
 * cut between its digits ("终端太小：12" / "×4"). */
static void test_too_small_keeps_the_size(void **state)
{
	(void)state;
	char above[256];
	chinese_row(12, 4, "", NULL, "12×4", -1, above, sizeof(above));
	assert_non_null(strstr(above, "终端太小："));
}

/* The legend's "╳ 隐藏的键（权重 0）" at 60x20 read "╳ 隐藏的键（…" (QA):
 * cut after a whole word, never inside its bracket. */
static void test_legend_hidden_key_cut_whole(void **state)
{
	(void)state;
	char line[512];
	chinese_row(60, 20, "", "nnnnnnmy", "固定的颜色", 0, line, sizeof(line));
	if (strstr(line, "（…") || !strstr(line, "隐藏的键")) {
		fprintf(stderr, "|%s\n", line);
		fail_msg("the hidden key's legend");
	}
}

/* A follower's "teacher: ... — f to follow" names the teacher's stage as
 * the header does, translated: it read "老师：projection，头 1". */
static void test_teacher_stage_translated(void **state)
{
	(void)state;
	if (!chinese())
		skip();
	struct av_state st;
	char line[256];
	av_state_init(&st);
	st.stage = 2;   /* projection */
	st.head = 1;
	av_state_where(&st, line, sizeof line);
	english();
	assert_null(strstr(line, "projection"));
	assert_non_null(strstr(line, "投影"));
}

/* A figure file is a slide for the class the screen speaks to: in Chinese
 * its title names the stage and the head as the screen does, and its
 * legend says what a hidden cell is, in Chinese; its formula already was.
 * The title read "masked · head 0 of 1 · causal" over a Chinese formula.
 * The numbers keep their '.' under a decimal comma (when the system has
 * de_DE). */
static void test_figure_files_in_chinese(void **state)
{
	(void)state;
	if (!chinese())
		skip();
	bool comma = setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "de_DE.utf8");
	struct harness h;
	char *svg = NULL, *text = NULL, *cause = NULL;
	assert_true(harness_open(&h, "xterm-256color", 80, 24, "", NULL, AV_MODE_CAUSAL, NULL));
	harness_keys(&h, "nnnnn");   /* masked: hidden cells are −∞ */
	bool ok = av_export_render(&h.a, AV_EXPORT_SVG, &svg, &cause);
	harness_keys(&h, "n");       /* softmax: hidden cells weigh 0 */
	ok = ok && av_export_render(&h.a, AV_EXPORT_TEXT, &text, &cause);
	english();
	harness_close(&h);
	if (!ok)
		fail_msg("%s", cause);
	printf("decimal comma tried: %s\n", comma ? "yes" : "no (no de_DE locale)");
	assert_non_null(strstr(svg, "<title>掩码后 · 头 0/1 · causal</title>"));
	assert_non_null(strstr(svg, ">隐藏的键（−∞）</text>"));
	assert_null(strstr(svg, "head 0 of"));
	assert_null(strstr(svg, "hidden key"));
	assert_non_null(strstr(svg, ">9.34</text>"));   /* japan -> panda */
	assert_int_equal(strncmp(text, "softmax · 头 0/1 · causal\n", 28), 0);
	assert_non_null(strstr(text, "\n╳ = 隐藏的键"));
	assert_non_null(strstr(text, "1.000"));
	assert_null(strstr(text, "1,000"));
	free(svg);
	free(text);
}

/* The inspector's heading joins its row, column and head with one comma:
 * it read "查询 0 'the', 键 0 'the'，头 0/8" (a "," then a "，"). */
static void test_heading_commas_agree(void **state)
{
	(void)state;
	char line[512];
	chinese_row(120, 40, "qkv-walkthrough", "nnn", "scores_h[0,0] = ", 0, line, sizeof(line));
	assert_non_null(strstr(line, "查询 0 'the'，键 0 'the'，头 0/8"));
}

/* The training view's loss panel, before the first epoch, says what runs
 * it; in Chinese, broken beside any character, its line filled the panel
 * and ran into the next one: "…s 训练一轮，S china     •    1.00". */
static void test_loss_note_keeps_its_gutter(void **state)
{
	(void)state;
	char line[512];
	chinese_row(80, 24, "", "t", "还没有训练", 0, line, sizeof(line));
	const char *china = strstr(line, "china");
	if (!china || china == line || china[-1] != ' ' || china - line < 2 || china[-2] != ' ')
		fail_msg("the note runs into the next panel: \"%s\"", line);
}

/* The pin's label joins its parts with the language's comma, as the
 * inspector's heading does: in Chinese it read "固定：context_h 头 3, self,
 * dmodel", ASCII commas between Chinese words. */
static void test_pin_label_commas(void **state)
{
	(void)state;
	char zh[512];
	chinese_row(80, 24, "", "Gpy", NULL, 0, zh, sizeof(zh));
	if (!strstr(zh, "固定：context_h 头 0，self，dk，T=1"))
		fail_msg("Chinese: \"%s\"", zh);
	struct harness h;
	assert_true(harness_open(&h, "xterm-256color", 80, 24, "", NULL, -1, NULL));
	harness_keys(&h, "Gpy");
	if (!strstr(row(0), "pinned: context_h head 0, self, dk, T=1"))
		fail_msg("English: \"%s\"", row(0));
	harness_close(&h);
}

/* The pin's label in Chinese says the context stage once: it read
 * "固定：上下文 context_h 头 0", the stage's name and then the matrix's,
 * which says it again; the output stage's output stays "输出". */
static void test_pin_label_names_the_stage_once(void **state)
{
	(void)state;
	char context[512], output[512];
	chinese_row(80, 24, "", "Gpy", NULL, 0, context, sizeof(context));
	/* the pin let go (Y), the output stage pinned */
	chinese_row(80, 24, "", "GpyYGy", NULL, 0, output, sizeof(output));
	if (!strstr(context, "固定：context_h 头 0，") && !strstr(context, "固定：context_h 头 0,"))
		fail_msg("context: \"%s\"", context);
	assert_null(strstr(context, "上下文 context_h"));
	if (!strstr(output, "固定：输出"))
		fail_msg("output: \"%s\"", output);
}

int main(void)
{
	utf8 = harness_setup_process();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wide_character_cut_by_a_space),
		cmocka_unit_test(test_pad_after_wide_cut),
		cmocka_unit_test(test_cut_last_character),
		cmocka_unit_test(test_wrapped_ends_in_words),
		cmocka_unit_test(test_wrapped_no_double_ellipsis),
		cmocka_unit_test(test_wrapped_cut_after_no_number),
		cmocka_unit_test(test_bidi_controls_not_sent),
		cmocka_unit_test(test_help_texts_fit),
		cmocka_unit_test(test_stage_titles_fit),
		cmocka_unit_test(test_too_small_keeps_the_size),
		cmocka_unit_test(test_teacher_stage_translated),
		cmocka_unit_test(test_heading_commas_agree),
		cmocka_unit_test(test_figure_files_in_chinese),
		cmocka_unit_test(test_pin_label_names_the_stage_once),
		cmocka_unit_test(test_pin_label_commas),
		cmocka_unit_test(test_loss_note_keeps_its_gutter),
		cmocka_unit_test(test_legend_hidden_key_cut_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
