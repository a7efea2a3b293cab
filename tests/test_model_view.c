/* test_model_view.c: the screen on a real GPT-2 (--model, issue 12) drawn
 * without a terminal (ui_harness.h): the stepper on one layer ([ ] change
 * it and the header says which), the keys of the teaching layer refused
 * with a reason, e re-running the model (and a too long sentence said),
 * and the model view (M): every layer x head, paged at 80x24 and 200x60,
 * a cursor that Enter opens in the stepper at the softmax, the next-token
 * prediction and the last layer's heads, without colour and on vt100, and
 * no line longer than the screen at any size.
 *
 * Models: the tiny random GPT-2 of tests/fixtures/gpt2-tiny (2 layers x 2
 * heads), and a 12 x 12 one (gpt2's layers and heads at width 24) that the
 * test writes with random weights next to the fixture's tokenizer. */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "model/gpt2.h"
#include "model/safetensors.h"
#include "ui/stages.h"
#include "ui/widgets/draw.h"
#include "ui/widgets/inspector.h"
#include "ui/views/model_ui.h"
#include "ui_harness.h"

#define TINY TESTS_SRCDIR "/fixtures/gpt2-tiny"
#define SENTENCE "the cat sat on the mat"

static bool utf8;
static char big_dir[] = "/tmp/attnview-model-view-XXXXXX";

/* --- a 12 x 12 GPT-2 with random weights --------------------------------- */

struct tensor_spec { char name[48]; int d0, d1; int kind; };   /* kind: 0 random, 1 ones, 2 zeros */

static uint64_t lcg = 12345;

static float next_random(void)
{
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return (float)((double)(lcg >> 40) / (double)(1ULL << 24) - 0.5);
}

static void write_big_model(void)
{
	enum { L = 12, H = 12, C = 24, V = 268, CTX = 32 };
	static struct tensor_spec t[4 + 12 * L];
	int n = 0;
#define T(nm, a, b, k) do { snprintf(t[n].name, sizeof(t[n].name), "%s", nm); \
		t[n].d0 = (a); t[n].d1 = (b); t[n].kind = (k); n++; } while (0)
	T("wte.weight", V, C, 0);
	T("wpe.weight", CTX, C, 0);
	for (int l = 0; l < L; l++) {
		char nm[48];
#define LT(suffix, a, b, k) do { snprintf(nm, sizeof(nm), "h.%d.%s", l, suffix); T(nm, a, b, k); } while (0)
		LT("ln_1.weight", C, 0, 1); LT("ln_1.bias", C, 0, 2);
		LT("attn.c_attn.weight", C, 3 * C, 0); LT("attn.c_attn.bias", 3 * C, 0, 2);
		LT("attn.c_proj.weight", C, C, 0); LT("attn.c_proj.bias", C, 0, 2);
		LT("ln_2.weight", C, 0, 1); LT("ln_2.bias", C, 0, 2);
		LT("mlp.c_fc.weight", C, 4 * C, 0); LT("mlp.c_fc.bias", 4 * C, 0, 2);
		LT("mlp.c_proj.weight", 4 * C, C, 0); LT("mlp.c_proj.bias", C, 0, 2);
#undef LT
	}
	T("ln_f.weight", C, 0, 1);
	T("ln_f.bias", C, 0, 2);
#undef T
	size_t cap = 64 * 1024, o = 0, offset = 0;
	char *header = malloc(cap);
	assert_non_null(header);
	o += (size_t)snprintf(header + o, cap - o, "{");
	for (int i = 0; i < n; i++) {
		size_t bytes = (size_t)t[i].d0 * (t[i].d1 ? t[i].d1 : 1) * 4;
		if (t[i].d1)
			o += (size_t)snprintf(header + o, cap - o,
					      "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[%d,%d],\"data_offsets\":[%zu,%zu]}",
					      i ? "," : "", t[i].name, t[i].d0, t[i].d1, offset, offset + bytes);
		else
			o += (size_t)snprintf(header + o, cap - o,
					      "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[%zu,%zu]}",
					      i ? "," : "", t[i].name, t[i].d0, offset, offset + bytes);
		offset += bytes;
	}
	o += (size_t)snprintf(header + o, cap - o, "}");
	while (o % 8)
		header[o++] = ' ';
	char *path = av_printf("%s/model.safetensors", big_dir);
	FILE *out = fopen(path, "wb");
	assert_non_null(out);
	unsigned char lenb[8];
	for (int i = 0; i < 8; i++)
		lenb[i] = (unsigned char)((uint64_t)o >> (8 * i));
	fwrite(lenb, 1, 8, out);
	fwrite(header, 1, o, out);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < t[i].d0 * (t[i].d1 ? t[i].d1 : 1); k++) {
			/* random weights of about gpt2's spread in the attention's
			 * scores: sharp and flat heads both */
			float v = t[i].kind == 1 ? 1.0f : t[i].kind == 2 ? 0.0f : 1.5f * next_random();
			fwrite(&v, 4, 1, out);
		}
	fclose(out);
	free(path);
	free(header);
	char *config = av_printf("%s/config.json", big_dir);
	out = fopen(config, "w");
	assert_non_null(out);
	fprintf(out, "{\"n_layer\": %d, \"n_head\": %d, \"n_embd\": %d, \"vocab_size\": %d, "
		"\"n_positions\": %d}\n", L, H, C, V, CTX);
	fclose(out);
	free(config);
	static const char *const files[] = { "vocab.json", "merges.txt" };
	for (int i = 0; i < 2; i++) {
		char *from = av_printf("%s/%s", TINY, files[i]);
		char *to = av_printf("%s/%s", big_dir, files[i]);
		assert_int_equal(symlink(from, to), 0);
		free(from);
		free(to);
	}
}

/* --- opening the screen as model_cli.c does ------------------------------ */

struct mharness {
	struct harness h;
	struct av_gpt2 m;
};

static void open_model(struct mharness *mh, const char *dir, const char *term, int cols,
		       int lines, const char *sentence, int layer)
{
	memset(mh, 0, sizeof(*mh));
	char *cause = NULL;
	if (!av_gpt2_load(&mh->m, dir, &cause)) {
		fprintf(stderr, "load: %s\n", cause);
		fail();
	}
	struct harness *h = &mh->h;
	h->s.sentence = av_strdup(sentence);
	h->s.sample.name = av_strdup("tiny");
	harness_screen(h, term, cols, lines);
	struct av_ui_config cfg = { .head = 0, .gpt2 = &mh->m, .gpt2_name = "tiny",
				    .gpt2_layer = layer };
	if (!av_app_init(&h->a, &h->s, &cfg, &cause)) {
		fprintf(stderr, "app: %s\n", cause ? cause : "?");
		fail();
	}
	h->app_open = true;
	av_app_draw(&h->a);
}

static void close_model(struct mharness *mh)
{
	harness_close(&mh->h);
	av_gpt2_free(&mh->m);
}

/* The model's own run of the sentence, for the numbers the screen shows. */
static void reference_run(const struct mharness *mh, const char *sentence, struct av_gpt2_run *r)
{
	char *cause = NULL;
	memset(r, 0, sizeof(*r));
	assert_true(av_gpt2_run_text(&mh->m, sentence, r, &cause));
}

static const char *status_line(void)
{
	return harness_line(LINES - 1);
}

/* The main loop's part when the worker's pipe wakes it: wait for the
 * forward (no timing: a condition), swap the run in, draw. */
static bool finish_forward(struct mharness *mh)
{
	av_model_ui_test_wait(&mh->h.a);
	bool changed = av_model_ui_collect(&mh->h.a);
	av_app_draw(&mh->h.a);
	return changed;
}

static void expect_status(const char *text)
{
	if (!harness_status_has(LINES - 1, text)) {
		fprintf(stderr, "status \"%s\" lacks \"%s\"\n", status_line(), text);
		fail();
	}
}

/* --- the stepper on one layer -------------------------------------------- */

static void test_stepper_layers(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 80, 24, SENTENCE, -1);
	struct av_app *a = &mh.h.a;
	/* the last layer by default, as --print */
	expect("layer 1/2");
	expect(" cat");
	expect("tokens (max 32)");   /* the fixture's n_ctx, not the tokenizer's 64 */
	assert_int_equal(av_model_ui_layer(a), 1);
	struct av_gpt2_run r;
	reference_run(&mh, SENTENCE, &r);
	int n = r.n, H = r.n_head;
	assert_int_equal(a->s->trace.n, n);
	/* [ : layer 0, and the trace holds layer 0's weights */
	harness_keys(&mh.h, "[");
	expect("layer 0/2");
	assert_int_equal(av_model_ui_layer(a), 0);
	assert_memory_equal(a->s->trace.weights, r.weights, (size_t)H * n * n * sizeof(float));
	harness_keys(&mh.h, "]");
	expect("layer 1/2");
	assert_memory_equal(a->s->trace.weights, r.weights + (size_t)H * n * n,
			    (size_t)H * n * n * sizeof(float));
	/* past the last layer: said, nothing changes */
	harness_keys(&mh.h, "]");
	assert_non_null(strstr(status_line(), "layers 0 to 1"));
	assert_int_equal(av_model_ui_layer(a), 1);
	/* X = ln_1(x) with the layer's own γ and β, the numbers as the
	 * inspector writes them with those of layer 1 */
	harness_keys(&mh.h, "n");
	struct av_part parts[AV_MAX_PARTS];
	av_ui_stage_parts(&a->s->trace, AV_STAGE_EMBEDDING, 0, parts);
	const struct av_gpt2_layer *L = &mh.m.layers[1];
	struct av_insp_weights wts = { .ln_gamma = L->ln_1_w, .ln_beta = L->ln_1_b };
	struct av_insp in;
	av_insp_cell_weights(&in, &a->s->trace, &a->s->params, &wts, &parts[1], 0, 0, 0, 200);
	const char *ln_line = NULL;
	for (int k = 0; k < in.n; k++)
		if (strstr(in.line[k], "X = γ[0]·z + β[0] = "))
			ln_line = in.line[k];
	assert_non_null(ln_line);
	expect(ln_line);
	av_insp_free(&in);
	harness_keys(&mh.h, "p");
	/* the inspector sums a projection with the layer's own weights */
	harness_keys(&mh.h, "nn");
	expect("Q[0,0] = X[0,:] · W_qᵀ[:,0] + b_q[0]");
	expect("terms)");
	harness_keys(&mh.h, "pp");
	/* the stepper's stages and heads work as usual on it */
	harness_keys(&mh.h, "nnnnnn\t");
	expect("7/9 softmax");
	assert_int_equal(a->head, 1);
	av_gpt2_run_free(&r);
	close_model(&mh);
}

/* The scaled stage says what a model's layer does: scores / √dk at T = 1,
 * which no key changes. The header said "scale=dk" and the stage spoke of
 * a temperature ("T > 1 flattens, T < 1 sharpens") that + and - refuse. */
static void test_scaled_says_sqrt_dk_without_temperature(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 200, 60, SENTENCE, -1);
	harness_keys(&mh.h, "nnnn");
	expect("5/9 scaled");
	expect("scale=√dk");
	expect_not("scale=dk");
	expect("scaled = scores / √dk = ");
	expect("the model runs at T = 1, as trained");
	expect_not("T > 1");
	expect_not("the temperature");
	close_model(&mh);
}

/* At 60 columns the inspector's heading did not fit its row and wrapped
 * inside "head 0 of 2" ("... head 0 of" / "2"): it says "head 0/2" there,
 * in one row. */
static void test_narrow_heading_reads_whole(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 60, 15, "When Mary and John went", -1);
	harness_keys(&mh.h, "nnn");
	expect("4/9 scores");
	expect("query 0 'W', key 0 'W', head 0/2");
	close_model(&mh);
}

/* At 120x40 the projection's sum of 16 terms ended "… (+1 term)" above
 * two blank rows of the inspector: the sum takes the rows left free. */
static void test_sum_uses_the_free_rows(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 120, 40, SENTENCE, -1);
	harness_keys(&mh.h, "nn");
	expect("3/9 projection");
	expect("Q[0,0] = X[0,:] · W_qᵀ[:,0] + b_q[0]");
	expect_not(" term)");
	expect_not(" terms)");
	close_model(&mh);
}

/* y pins a layer's matrix: the pin names its layer, says which keys change
 * the live side here (the mask, scale and T of a published model are its
 * own), and [ compares with another layer. */
static void test_pin_names_the_layer(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 80, 24, SENTENCE, -1);
	harness_keys(&mh.h, "nnnnnny");
	expect_status("pinned softmax head 0 layer 1");
	expect_status("the layer ([ ])");
	assert_false(harness_status_has(LINES - 1, "change the mask"));
	harness_keys(&mh.h, "l");   /* the message goes: the view's key hints */
	expect_status("Tab [ ] e: change live");
	harness_keys(&mh.h, "[");
	expect("live: softmax head 0 layer 0");
	expect("pinned: softmax head 0 layer 1");
	close_model(&mh);
}

/* Every key of the teaching layer says why it does nothing here, and
 * changes nothing. */
static void test_refused_keys(void **state)
{
	(void)state;
	static const struct { const char *key, *says; } keys[] = {
		{ "m", "causal as trained" }, { "x", "padding mask" }, { "c", "no cross mode" },
		{ "E", "no source" }, { "s", "square root of the head width" },
		{ "+", "T = 1" }, { "-", "T = 1" }, { "0", "T = 1" }, { "r", "not drawn from a seed" },
		{ "t", "published model" }, { "F", "teaching layer" },
		{ "W", "--dump" }, { "}", "lessons" },
	};
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 200, 60, SENTENCE, -1);
	struct av_app *a = &mh.h.a;
	float before = a->s->trace.weights[0];
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		harness_keys(&mh.h, keys[i].key);
		if (!strstr(status_line(), keys[i].says)) {
			fprintf(stderr, "key %s: status \"%s\"\n", keys[i].key, status_line());
			fail();
		}
		assert_ptr_equal(a->view, &av_view_stage);
		assert_null(a->overlay);
	}
	assert_int_equal(a->s->trace.cfg.mode, AV_MODE_CAUSAL);
	assert_true(a->s->trace.weights[0] == before);
	close_model(&mh);
}

/* The tokens stage's inspector describes a piece by its bytes, the label
 * as the label: on "猫  x" it said "4 bytes, 4 columns: U+003C U+0065
 * U+0037 U+003E" (the label "<e7>") for the byte e7, and "3 bytes, 1
 * column: U+2423" (the label "␣") for a space. */
static void test_token_bytes(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 80, 24, "\xe7\x8c\xab  x", -1);
	struct av_app *a = &mh.h.a;
	assert_int_equal(a->s->trace.n, 6);
	if (utf8) {
		expect("sentence token 0, shown as '<e7>': vocabulary row 231");
		expect("1 byte: e7");
		expect("e7: a piece of a character, byte 1 of 3 of '猫' U+732B (tokens 0 to 2)");
		expect_not("U+003C");
		harness_keys(&mh.h, "jj");
		expect("ab: a piece of a character, byte 3 of 3 of '猫' U+732B (tokens 0 to 2)");
		harness_keys(&mh.h, "j");
		expect("sentence token 3, shown as '␣': vocabulary row 32");
		expect("1 byte: 20");
		expect("1 character, 1 column: U+0020");
		expect("the label shows each space as ␣, so that it is seen");
		expect_not("U+2423");
		harness_keys(&mh.h, "jj");
		expect("sentence token 5 'x': vocabulary row 120");
		expect("1 character, 1 column: U+0078");
	}
	close_model(&mh);
}

/* In an ASCII locale a token of spaces is shown "_" (␣'s stand-in), not
 * "?", the mark of a character the terminal cannot show: on "猫  x" the
 * two space tokens looked like two undisplayable characters. */
static void test_space_label_ascii(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 80, 24, "\xe7\x8c\xab  x", -1);
	av_draw_set_utf8(false);   /* as av_app_init decides in a C locale */
	harness_key(&mh.h, AV_CTRL('L'));
	expect("tokens 0 <e7>  1 <8c>  2 <ab>  3 _  4 _  5 x");
	expect("  3  _                   32");
	harness_keys(&mh.h, "jjj");
	expect("sentence token 3, shown as '_': vocabulary row 32");
	expect("the label shows each space as _, so that it is seen");
	expect_not("3 ?");
	/* the character itself, where a piece names it, has no stand-in */
	harness_keys(&mh.h, "kkk");
	expect("e7: a piece of a character, byte 1 of 3 of '?\?' U+732B");
	av_draw_set_utf8(utf8);
	close_model(&mh);
}

/* ':' opens the prompt on a model too: ":seed 3" was refused at ':' and
 * "seed 3" then ran as keys (e opened the editor, which got "ed 3"). The
 * teaching layer's commands are refused on Enter with their key's reason,
 * the prompt kept; sentence, help and quit work, Tab offers only them. */
static void test_command_prompt(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 200, 60, SENTENCE, -1);
	struct av_app *a = &mh.h.a;
	float before = a->s->trace.weights[0];
	static const struct { const char *line, *says; } refused[] = {
		{ ":seed 3", "seed: the model's weights are loaded from its file" },
		{ ":temp 2", "temp: GPT-2's softmax runs at T = 1" },
		{ ":lr 0.1", "lr: training is for the teaching layer" },
		{ ":source le chat", "source: GPT-2 has no source sentence" },
		{ ":write x.json", "write: W writes the teaching layer" },
		{ ":export trace", "export: W writes the teaching layer" },
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		harness_keys(&mh.h, refused[i].line);
		assert_ptr_equal(a->overlay, &av_view_prompt);   /* the letters are its */
		expect_status(refused[i].line);
		harness_key(&mh.h, '\r');
		expect_status(refused[i].says);
		expect_status("with --model: sentence, help, quit");
		assert_ptr_equal(a->overlay, &av_view_prompt);   /* kept, to correct */
		harness_key(&mh.h, AV_KEY_ESC);
		assert_null(a->overlay);
		assert_string_equal(a->s->sentence, SENTENCE);
		assert_true(a->s->trace.weights[0] == before);
	}
	/* Tab: only what runs here */
	harness_keys(&mh.h, ":");
	harness_key(&mh.h, '\t');
	expect_status("sentence, help, quit, q");
	harness_key(&mh.h, AV_KEY_ESC);
	harness_keys(&mh.h, ":se");
	harness_key(&mh.h, '\t');
	expect_status(":sentence ");
	harness_key(&mh.h, AV_KEY_ESC);
	harness_keys(&mh.h, ":help\r");
	expect_status("with --model: sentence S");
	/* :sentence runs the model on it, as e does */
	harness_keys(&mh.h, ":sentence the mat\r");
	assert_null(a->overlay);
	finish_forward(&mh);
	assert_string_equal(a->s->sentence, "the mat");
	struct av_gpt2_run r;
	reference_run(&mh, "the mat", &r);
	assert_int_equal(a->s->trace.n, r.n);
	assert_memory_equal(a->s->trace.weights + 0, r.weights + (size_t)r.n_head * r.n * r.n,
			    (size_t)r.n_head * r.n * r.n * sizeof(float));
	expect_status("sentence: 3 tokens");
	av_gpt2_run_free(&r);
	/* the text on screen: said, and no forward is started */
	harness_keys(&mh.h, ":sentence the mat\r");
	assert_false(av_model_ui_busy(a));
	expect_status("sentence already on screen (3 tokens)");
	/* a sentence that does not run is said, and the prompt stays */
	harness_keys(&mh.h, ":sentence \r");
	expect_status("the sentence is empty");
	assert_ptr_equal(a->overlay, &av_view_prompt);
	harness_key(&mh.h, AV_KEY_ESC);
	harness_keys(&mh.h, ":q\r");
	assert_true(a->quit);
	close_model(&mh);
}

/* e: the model runs on the new sentence; too long is said and the old run
 * stays. */
static void test_edit_reruns(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 80, 24, SENTENCE, 0);
	struct av_app *a = &mh.h.a;
	harness_keys(&mh.h, "e");
	harness_key(&mh.h, AV_CTRL('U'));
	harness_keys(&mh.h, "the mat");
	harness_key(&mh.h, '\r');
	assert_null(a->overlay);
	assert_true(finish_forward(&mh));
	struct av_gpt2_run r;
	reference_run(&mh, "the mat", &r);
	assert_int_equal(a->s->trace.n, r.n);
	assert_memory_equal(a->s->trace.weights, r.weights,
			    (size_t)r.n_head * r.n * r.n * sizeof(float));
	int ids[3];
	double probs[3];
	int got_ids[3];
	double got_probs[3];
	assert_int_equal(av_gpt2_top_k(&r, r.n - 1, 3, ids, probs), 3);
	assert_int_equal(av_model_ui_top(a, 3, got_ids, got_probs), 3);
	assert_memory_equal(ids, got_ids, sizeof(ids));
	av_gpt2_run_free(&r);
	/* 40 words: more tokens than the model's 32 positions */
	harness_keys(&mh.h, "e");
	harness_key(&mh.h, AV_CTRL('U'));
	for (int i = 0; i < 40; i++)
		harness_keys(&mh.h, i ? " cat" : "cat");
	assert_non_null(strstr(status_line(), "tokens"));
	harness_key(&mh.h, '\r');
	assert_non_null(a->overlay);   /* Enter does not apply a text that does not run */
	harness_key(&mh.h, AV_KEY_ESC);
	assert_null(a->overlay);
	assert_int_equal(a->s->trace.n, 3);   /* "the mat", the sentence before e, again */
	close_model(&mh);
}

/* The tiny model with its position rows times 10000: a stream x of
 * thousands, as GPT-2's reaches hundreds in its later layers, written to
 * dir (vocab.json, merges.txt and config.json linked from the fixture). */
static void write_loud_stream_model(const char *dir)
{
	FILE *in = fopen(TINY "/model.safetensors", "rb");
	assert_non_null(in);
	static unsigned char bytes[1 << 16];
	size_t len = fread(bytes, 1, sizeof(bytes), in);
	fclose(in);
	assert_true(len > 0 && len < sizeof(bytes));
	struct av_safetensors st;
	char *cause = NULL;
	assert_true(av_st_parse(&st, bytes, len, "tiny", &cause));
	const struct av_st_tensor *wpe = av_st_find(&st, "wpe.weight");
	assert_non_null(wpe);
	unsigned char *data = bytes + (st.data - bytes);
	for (size_t at = wpe->begin; at < wpe->end; at += 4) {
		float v;
		memcpy(&v, data + at, 4);
		v *= 10000.0f;
		memcpy(data + at, &v, 4);
	}
	av_st_close(&st);
	char *path = av_printf("%s/model.safetensors", dir);
	FILE *out = fopen(path, "wb");
	assert_non_null(out);
	assert_int_equal(fwrite(bytes, 1, len, out), len);
	fclose(out);
	free(path);
	static const char *const files[] = { "vocab.json", "merges.txt", "config.json" };
	for (int i = 0; i < 3; i++) {
		char *from = av_printf("%s/%s", TINY, files[i]);
		char *to = av_printf("%s/%s", dir, files[i]);
		assert_int_equal(symlink(from, to), 0);
		free(from);
		free(to);
	}
}

static void remove_model(const char *dir)
{
	static const char *const files[] = { "model.safetensors", "vocab.json", "merges.txt",
					     "config.json" };
	for (int i = 0; i < 4; i++) {
		char *p = av_printf("%s/%s", dir, files[i]);
		unlink(p);
		free(p);
	}
	rmdir(dir);
}

/* X = ln_1(x) is of order 1 whatever x is: its cells keep their decimals
 * beside a stream x of thousands. They took x's, none at 80x24, so
 * X[0,0] = −0.243 (the inspector said so) read "0" in its row. */
static void test_embedding_keeps_its_decimals(void **state)
{
	(void)state;
	if (!utf8)
		skip();
	char dir[] = "/tmp/attnview-loud-XXXXXX";
	assert_non_null(mkdtemp(dir));
	write_loud_stream_model(dir);
	struct mharness mh;
	open_model(&mh, dir, "xterm-256color", 80, 24, SENTENCE, 0);
	harness_keys(&mh.h, "n");
	expect("2/9 embedding");
	const struct av_trace *t = &mh.h.a.s->trace;
	float x_max = 0;
	for (int i = 0; i < t->n * t->d_model; i++)
		x_max = fmaxf(x_max, fabsf(t->layer_input[i]));
	assert_true(x_max > 1000);   /* the stream is loud */
	char want[32];
	harness_cell_text(want, sizeof(want), 3, t->embedding[0]);
	int y = -1;
	for (int k = 0; k < LINES; k++)
		if (!strncmp(harness_line(k), "0 t ", 4))
			y = k;
	assert_true(y >= 0);
	if (!strstr(harness_line(y), want)) {
		fprintf(stderr, "X[0,0] = %s is not in its row:\n", want);
		harness_dump();
		fail();
	}
	close_model(&mh);
	remove_model(dir);
}

/* With 19 tokens at 80x24 the inspector has four rows under the matrix:
 * ln_1's sum must keep its last step. The prose came first and took two
 * rows, so "X = γ[0]·z + β[0] = … = −1.070" was cut and X[0,0] = −1.070
 * stood over z = −1.017 with nothing between. */
static void test_layer_norm_keeps_its_last_step(void **state)
{
	(void)state;
	if (!utf8)
		skip();
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 80, 24,
		   "the cat sat on the mat and the cat sat on the hat", -1);
	harness_keys(&mh.h, "n");
	expect("2/9 embedding");
	expect("rows 0-11 of 19");
	char want[64], value[32];
	harness_cell_text(value, sizeof(value), 3, mh.h.a.s->trace.embedding[0]);
	snprintf(want, sizeof(want), " = %s", value);
	int y = harness_find("X = γ[0]·z + β[0] = ");
	if (y < 0 || !strstr(harness_line(y), want)) {
		fprintf(stderr, "no \"X = γ[0]·z + β[0] = …%s\":\n", want);
		harness_dump();
		fail();
	}
	expect("z = (x − μ) / √(σ² + ε) = ");
	close_model(&mh);
}

/* The editor says the model's own limit whatever the count: 220 tokens
 * said "more than 64 tokens" (the tokenizer's) where 33 to 64 said "the
 * model takes 1 to 32". */
static void test_too_long_says_the_limit(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 200, 60, SENTENCE, -1);
	struct av_app *a = &mh.h.a;
	static const int counts[] = { 40, 65, 220 };
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		harness_keys(&mh.h, "e");
		harness_key(&mh.h, AV_CTRL('U'));
		harness_keys(&mh.h, "the");   /* "t" "he", then a token per " the" */
		for (int k = 1; k < counts[i] - 1; k++)
			harness_keys(&mh.h, " the");
		char want[64];
		snprintf(want, sizeof(want), "%d tokens: the model takes 1 to 32", counts[i]);
		expect_status(want);
		harness_key(&mh.h, AV_KEY_ESC);
		assert_null(a->overlay);
	}
	close_model(&mh);
}

/* --- the forward in the worker thread ------------------------------------ */

/* The worker held at its gate, the editor opened and emptied, text typed:
 * returns once the worker has taken it (and waits at the gate). */
static void edit_held(struct mharness *mh, const char *text)
{
	av_model_ui_test_hold(&mh->h.a, true);
	harness_keys(&mh->h, "e");
	harness_key(&mh->h, AV_CTRL('U'));
	harness_keys(&mh->h, text);
	av_model_ui_test_wait(&mh->h.a);
}

/* While the worker computes (held at its gate) the screen takes keys: the
 * editor types, the status line says computing, the old run stays whole
 * on screen (tokens and numbers of the sentence before), Enter closes the
 * editor, [ changes the layer; released, the new run swaps in. */
static void test_keys_while_computing(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 80, 24, SENTENCE, -1);
	struct av_app *a = &mh.h.a;
	int n_before = a->s->trace.n;
	edit_held(&mh, "the mat");
	assert_true(av_model_ui_busy(a));
	expect_status("computing");
	expect_status("sentence> the mat");
	expect(" cat");                          /* the old tokens, still */
	assert_int_equal(a->s->trace.n, n_before);
	assert_string_equal(a->s->sentence, SENTENCE);
	/* typing goes on; Enter closes the editor at once */
	harness_keys(&mh.h, "s");
	expect_status("sentence> the mats");
	harness_key(&mh.h, '\r');
	assert_null(a->overlay);
	expect_status("computing the model");
	/* other keys work meanwhile: [ shows layer 0 of the old run */
	harness_keys(&mh.h, "[");
	expect("layer 0/2");
	assert_int_equal(a->s->trace.n, n_before);
	assert_false(av_model_ui_collect(a));    /* nothing finished yet */
	av_model_ui_test_hold(a, false);
	assert_true(finish_forward(&mh));
	assert_false(av_model_ui_busy(a));
	assert_string_equal(a->s->sentence, "the mats");
	struct av_gpt2_run r;
	reference_run(&mh, "the mats", &r);
	assert_int_equal(a->s->trace.n, r.n);
	assert_memory_equal(a->s->trace.weights, r.weights,   /* layer 0, kept */
			    (size_t)r.n_head * r.n * r.n * sizeof(float));
	expect_status("sentence:");
	expect("3 s");                       /* " mat" "s": the new tokens */
	expect_not("computing");
	av_gpt2_run_free(&r);
	close_model(&mh);
}

/* Newest wins: texts typed while one computes replace each other; the one
 * computing is thrown away, and only the newest runs after it. */
static void test_newest_wins(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 80, 24, SENTENCE, -1);
	struct av_app *a = &mh.h.a;
	edit_held(&mh, "the");   /* taken by the worker, held */
	harness_keys(&mh.h, " mat");     /* pending */
	harness_keys(&mh.h, " sat");     /* replaces it */
	harness_keys(&mh.h, " on");      /* and again */
	assert_int_equal(av_model_ui_test_forwards(a), 0);
	av_model_ui_test_hold(a, false);
	assert_true(finish_forward(&mh));
	/* "the" (stale, dropped) and "the mat sat on": not every keystroke */
	assert_int_equal(av_model_ui_test_forwards(a), 2);
	assert_string_equal(a->s->sentence, "the mat sat on");
	struct av_gpt2_run r;
	reference_run(&mh, "the mat sat on", &r);
	assert_int_equal(a->s->trace.n, r.n);
	assert_memory_equal(a->s->trace.weights, r.weights + (size_t)r.n_head * r.n * r.n,
			    (size_t)r.n_head * r.n * r.n * sizeof(float));
	assert_non_null(a->overlay);     /* the editor stays open, no message */
	expect_status("sentence> the mat sat on");
	expect_not("computing");
	av_gpt2_run_free(&r);
	close_model(&mh);
}

/* Esc while one computes: it is dropped, the old run stays. Esc after a
 * typed text already swapped in: the sentence before e runs again. */
static void test_cancel(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 80, 24, SENTENCE, -1);
	struct av_app *a = &mh.h.a;
	float before = a->s->trace.weights[0];
	int n_before = a->s->trace.n;
	edit_held(&mh, "the mat");
	assert_true(av_model_ui_busy(a));
	harness_key(&mh.h, AV_KEY_ESC);
	assert_null(a->overlay);
	assert_false(av_model_ui_busy(a));
	expect_status("edit cancelled");
	av_model_ui_test_hold(a, false);
	assert_false(finish_forward(&mh));    /* computed, thrown away */
	assert_int_equal(av_model_ui_test_forwards(a), 1);
	assert_string_equal(a->s->sentence, SENTENCE);
	assert_int_equal(a->s->trace.n, n_before);
	assert_true(a->s->trace.weights[0] == before);
	/* a text that swapped in while typing, then Esc */
	harness_keys(&mh.h, "e");
	harness_key(&mh.h, AV_CTRL('U'));
	harness_keys(&mh.h, "the mat");
	assert_true(finish_forward(&mh));
	assert_string_equal(a->s->sentence, "the mat");
	harness_key(&mh.h, AV_KEY_ESC);
	assert_true(finish_forward(&mh));
	assert_string_equal(a->s->sentence, SENTENCE);
	assert_int_equal(a->s->trace.n, n_before);
	assert_true(a->s->trace.weights[0] == before);
	close_model(&mh);
}

/* Esc after Enter, while the new sentence still computes, drops it: the
 * old sentence stays (it said "Esc does nothing here" and the run went on
 * to replace it). */
static void test_esc_drops_a_run(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 80, 24, SENTENCE, -1);
	struct av_app *a = &mh.h.a;
	edit_held(&mh, "the mat");
	harness_key(&mh.h, '\r');
	assert_true(av_model_ui_busy(a));
	harness_key(&mh.h, AV_KEY_ESC);
	expect_status("dropped: the sentence shown stays");
	av_model_ui_test_hold(a, false);
	finish_forward(&mh);
	assert_string_equal(a->s->sentence, SENTENCE);
	/* nothing computing: Esc is what it was */
	harness_key(&mh.h, AV_KEY_ESC);
	expect_status("does nothing here");
	close_model(&mh);
}

/* q while one computes (held): the worker is stopped and joined, nothing
 * leaks (ASan) and nothing races (TSan). */
static void test_quit_while_computing(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 80, 24, SENTENCE, -1);
	edit_held(&mh, "the mat");
	harness_keys(&mh.h, " sat");      /* one pending as well */
	close_model(&mh);
}

/* --- the model view ------------------------------------------------------ */

/* The first row of the panel with text, or -1. */
static int panel_find(const struct harness *h, const char *text)
{
	const struct av_rect *r = &h->a.layout.panel;
	for (int y = r->y; y < r->y + r->h; y++)
		if (strstr(harness_line(y), text))
			return y;
	return -1;
}

static void test_model_view_80x24_pages(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, big_dir, "xterm-256color", 80, 24, SENTENCE, 0);
	struct av_app *a = &mh.h.a;
	harness_keys(&mh.h, "M");
	assert_ptr_equal(a->view, &av_view_model);
	expect("model · 7/9 softmax");
	/* all 12 heads across 80 columns, the layers paged */
	assert_true(panel_find(&mh.h, "h0") >= 0);
	assert_true(panel_find(&mh.h, "h11") >= 0);
	expect("layers 0-2 of 12 (page 1/4)");
	assert_true(panel_find(&mh.h, "L0") >= 0);
	assert_true(panel_find(&mh.h, "L3") < 0);
	/* n: the next page; the cursor goes with it */
	harness_keys(&mh.h, "n");
	expect("layers 3-5 of 12 (page 2/4)");
	assert_true(panel_find(&mh.h, "L3") >= 0);
	assert_int_equal(av_model_ui_layer(a), 3);
	/* G: the last layer; Right Right: head 2 */
	harness_keys(&mh.h, "Gll");
	expect("layers 9-11 of 12 (page 4/4)");
	expect("cursor: layer 11 head 2");
	expect("layer 11/12");
	/* n and j past the last layer say so (they did nothing, silently) */
	harness_keys(&mh.h, "n");
	expect_status("the model has layers 0 to 11");
	assert_int_equal(av_model_ui_layer(a), 11);
	harness_keys(&mh.h, "j");
	expect_status("the model has layers 0 to 11");
	/* so do the heads' keys past the first or last head, and < and >
	 * where every head is on the page (they did nothing, silently: QA) */
	harness_keys(&mh.h, "lllllllll");
	assert_int_equal(a->head, 11);
	harness_keys(&mh.h, "l");
	expect_status("the model has heads 0 to 11");
	harness_keys(&mh.h, "hh");
	expect_not("the model has heads");
	harness_keys(&mh.h, ">");   /* every head on the page: the last */
	assert_int_equal(a->head, 11);
	expect_not("the model has heads");
	harness_keys(&mh.h, ">");
	expect_status("the model has heads 0 to 11");
	harness_keys(&mh.h, "<");   /* the first */
	assert_int_equal(a->head, 0);
	harness_keys(&mh.h, "h");
	expect_status("the model has heads 0 to 11");
	harness_keys(&mh.h, "ll");
	/* the cursor's tile is bracketed */
	assert_true(panel_find(&mh.h, "[") >= 0);
	/* Enter: that head in the stepper, at the softmax, on the last query */
	harness_key(&mh.h, '\r');
	assert_ptr_equal(a->view, &av_view_stage);
	assert_int_equal(a->stage, AV_STAGE_SOFTMAX);
	assert_int_equal(a->head, 2);
	expect("layer 11/12");
	expect("7/9 softmax");
	/* M goes back to the same place */
	harness_keys(&mh.h, "M");
	expect("cursor: layer 11 head 2");
	assert_int_equal(av_draw_overflows(), 0);
	close_model(&mh);
}

/* The panel's row that starts with layer l's label ("L1", not "L11"), or
 * -1. */
static int layer_label_row(const struct harness *h, int l)
{
	char label[16];
	int len = snprintf(label, sizeof(label), "L%d", l);
	const struct av_rect *r = &h->a.layout.panel;
	for (int y = r->y; y < r->y + r->h; y++) {
		const char *line = harness_line(y);
		if (strncmp(line, label, (size_t)len) == 0 && !(line[len] >= '0' && line[len] <= '9'))
			return y;
	}
	return -1;
}

/* A tile's size from the labels: the rows between the labels of layers l
 * and l + 1 are a tile and its gap, the columns between h0's and h1's a
 * tile and its gap (the tiles' colours are not in the screen's text). */
static void tile_size(const struct harness *h, int l, int *tile_w, int *tile_h)
{
	int y0 = layer_label_row(h, l), y1 = layer_label_row(h, l + 1);
	assert_true(y0 >= 0 && y1 > y0);
	const char *labels = harness_line(h->a.layout.panel.y);
	const char *h0 = strstr(labels, "h0"), *h1 = strstr(labels, "h1");
	assert_true(h0 && h1 && h1 > h0);
	*tile_h = y1 - y0 - 1;
	*tile_w = (int)(h1 - h0) - 1;
}

static void test_model_view_200x60(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, big_dir, "xterm-256color", 200, 60, SENTENCE, 11);
	harness_keys(&mh.h, "M");
	/* wider tiles (n = 7: every key its column), more layers a page; as
	 * tall as keeps the pages 2 (6 rows: 6 layers a page, not 9 and 3) */
	expect("(page 2/2)");
	expect("layers 6-11 of 12 (page 2/2)");
	int tw, th;
	tile_size(&mh.h, 6, &tw, &th);
	assert_int_equal(tw, 7);
	assert_int_equal(th, 6);
	expect("a cell: the largest weight in its block of queries x keys");
	int y = panel_find(&mh.h, "h11");
	assert_true(y >= 0);
	assert_true(strstr(harness_line(y), "h10") != NULL);
	assert_int_equal(av_draw_overflows(), 0);
	close_model(&mh);
}

/* The tiny model (2 layers x 2 heads; "the dog", 6 tokens) at 80x24 showed
 * 3 x 6 tiles, the queries pooled two by two, in the top half of the
 * panel; at 200x60 the same 3 x 6 in a corner. The tiles now grow with the
 * panel in whole blocks per weight (a key's columns twice its query's
 * rows: square on the screen), the whole grid inside the panel. */
static void test_model_view_fills_the_panel(void **state)
{
	(void)state;
	static const struct { int cols, lines, tile_w, tile_h; } sizes[] = {
		{ 80, 24, 12, 6 },     /* a block of 2 x 1 per weight */
		{ 120, 40, 24, 12 },   /* 4 x 2 */
		{ 200, 60, 36, 18 },   /* 6 x 3 */
	};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct mharness mh;
		open_model(&mh, TINY, "xterm-256color", sizes[i].cols, sizes[i].lines, "the dog",
			   -1);
		assert_int_equal(mh.h.a.s->trace.n, 6);
		harness_keys(&mh.h, "M");
		expect("layers 0-1 of 2 (page 1/1)");
		int tw, th;
		tile_size(&mh.h, 0, &tw, &th);
		if (tw != sizes[i].tile_w || th != sizes[i].tile_h) {
			fprintf(stderr, "%dx%d: tiles %dx%d, want %dx%d\n", sizes[i].cols,
				sizes[i].lines, tw, th, sizes[i].tile_w, sizes[i].tile_h);
			harness_dump();
			fail();
		}
		char legend[64];
		snprintf(legend, sizeof(legend), "a block of %dx%d cells: one weight",
			 sizes[i].tile_w / 6, sizes[i].tile_h / 6);
		expect(legend);
		/* L1's tile ends inside the panel */
		const struct av_rect *r = &mh.h.a.layout.panel;
		int l1 = layer_label_row(&mh.h, 1);
		assert_true(l1 - th / 2 + th <= r->y + r->h);
		assert_int_equal(av_draw_overflows(), 0);
		close_model(&mh);
	}
	/* without colour the blocks are glyphs: the first query sees only
	 * itself, weight 1, so its row of a tile is one full block of 2 and
	 * then nothing (its keys 1-5, weight 0) */
	setenv("NO_COLOR", "1", 1);
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 80, 24, "the dog", -1);
	harness_keys(&mh.h, "M");
	int y = mh.h.a.layout.panel.y + 1, x = (int)(strstr(harness_line(y - 1), "h0") -
						     harness_line(y - 1));
	char want[64];
	snprintf(want, sizeof(want), "%s%s          ", utf8 ? "█" : "#", utf8 ? "█" : "#");
	char row[4096];
	snprintf(row, sizeof(row), "%s", harness_line(y));
	/* the row label column is ASCII: x columns are x bytes */
	if (strncmp(row + x, want, strlen(want)) != 0) {
		fprintf(stderr, "row %d from column %d: \"%s\"\n", y, x, row + x);
		harness_dump();
		fail();
	}
	/* magnified tiles on every size, resized on the way: nothing drawn
	 * past the screen or the panel (1 token: one block a tile) */
	static const int walk[][2] = { { 40, 12 }, { 200, 60 }, { 41, 13 }, { 250, 80 },
				       { 60, 20 }, { 120, 40 } };
	for (size_t i = 0; i < sizeof(walk) / sizeof(walk[0]); i++) {
		harness_resize(&mh.h, walk[i][0], walk[i][1]);
		for (int k = 0; k < LINES; k++)
			assert_true(av_text_width(harness_line(k)) <= COLS);
		harness_keys(&mh.h, i % 2 ? "kh" : "jl");
		assert_int_equal(av_draw_overflows(), 0);
	}
	close_model(&mh);
	open_model(&mh, TINY, "xterm-256color", 200, 60, "t", -1);
	harness_keys(&mh.h, "M");
	expect("a block of 8x4 cells: one weight");
	harness_resize(&mh.h, 40, 12);
	assert_int_equal(av_draw_overflows(), 0);
	close_model(&mh);
	unsetenv("NO_COLOR");
}

/* The next token and the last layer's heads: the numbers the model gives. */
static void test_prediction(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 200, 60, SENTENCE, -1);
	harness_keys(&mh.h, "M");
	struct av_gpt2_run r;
	reference_run(&mh, SENTENCE, &r);
	int ids[2];
	double probs[2];
	av_gpt2_top_k(&r, r.n - 1, 2, ids, probs);
	char want[128];
	char *tok = av_bpe_display(&mh.m.bpe, ids[0]);
	snprintf(want, sizeof(want), "\"%s\" %.1f%%", tok, 100 * probs[0]);
	free(tok);
	expect("next token after \" mat\":");
	expect(want);
	/* each last-layer head's most-attended token from the last query */
	int n = r.n, L = r.n_layer;
	for (int h = 0; h < r.n_head; h++) {
		const float *row = r.weights + (((size_t)(L - 1) * r.n_head + h) * n + n - 1) * n;
		int best = 0;
		for (int j = 1; j < n; j++)
			if (row[j] > row[best])
				best = j;
		snprintf(want, sizeof(want), "h%d \"%s\" %.2f", h,
			 mh.h.a.s->trace.tokens.text[best], row[best]);
		expect(want);
	}
	av_gpt2_run_free(&r);
	close_model(&mh);
}

/* The help over the model view lists its own keys first: the arrows move
 * through layers and heads, n/p page, Enter opens, M or Esc goes back (it
 * listed only the stepper's: "Up k cursor up", "Enter answer"). */
static void test_help_lists_the_views_keys(void **state)
{
	(void)state;
	if (!utf8)
		skip();
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 80, 24, SENTENCE, -1);
	harness_keys(&mh.h, "M?");
	expect("In the layers x heads (M)");
	expect("Up k         layer before");
	expect("Enter        open it in the stepper");
	expect("M Esc        back to the stepper");
	close_model(&mh);
}

/* Without colour the weights are shade glyphs; vt100 draws ASCII ones. */
static void test_no_color(void **state)
{
	(void)state;
	setenv("NO_COLOR", "1", 1);
	struct mharness mh;
	open_model(&mh, TINY, "xterm-256color", 80, 24, SENTENCE, -1);
	harness_keys(&mh.h, "M");
	/* the first query sees only itself: weight 1, the densest glyph */
	assert_true(panel_find(&mh.h, utf8 ? "█" : "#") >= 0);
	close_model(&mh);
	open_model(&mh, TINY, "vt100", 80, 24, SENTENCE, -1);
	harness_keys(&mh.h, "M");
	expect("every layer x head");
	assert_int_equal(av_draw_overflows(), 0);
	close_model(&mh);
	unsetenv("NO_COLOR");
}

/* Without a UTF-8 locale the model's screens are ASCII too (test_ui.c's
 * test_ascii_every_view does the teaching layer): the stepper on every
 * stage, another layer, the layers x heads view, numbers, help, and a
 * sentence with CJK, whose byte pieces are shown as <e4>. */
static void test_ascii(void **state)
{
	(void)state;
	static const struct {
		const char *sentence, *keys;
	} walks[] = {
		{ SENTENCE, "nnnnnnnnn[[]pMzMz?\033" },
		{ "the \xE7\x86\x8A cat", "nnnnnnMz" },
	};
	for (size_t w = 0; w < sizeof(walks) / sizeof(walks[0]); w++) {
		struct mharness mh;
		open_model(&mh, TINY, "xterm-256color", 80, 24, walks[w].sentence, -1);
		av_draw_set_utf8(false);   /* as av_app_init decides in a C locale */
		harness_key(&mh.h, AV_CTRL('L'));
		char what[32];
		snprintf(what, sizeof what, "walk %zu", w);
		harness_walk_ascii(&mh.h, walks[w].keys, what);
		close_model(&mh);
		av_draw_set_utf8(utf8);
	}
}

/* Every size from the smallest up, with CJK (bytes of the tiny vocabulary,
 * shown as <e4>) and many tokens: no line past the screen's edge. */
static void test_every_size(void **state)
{
	(void)state;
	struct mharness mh;
	open_model(&mh, big_dir, "xterm-256color", 80, 24, "the cat 中文 sat on the mat", 5);
	harness_keys(&mh.h, "M");
	static const int sizes[][2] = { { 40, 12 }, { 41, 13 }, { 60, 20 }, { 80, 24 },
					{ 100, 30 }, { 132, 43 }, { 200, 60 }, { 250, 80 } };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		harness_resize(&mh.h, sizes[i][0], sizes[i][1]);
		for (int y = 0; y < LINES; y++)
			assert_true(av_text_width(harness_line(y)) <= COLS);
		harness_keys(&mh.h, "lj");
		assert_int_equal(av_draw_overflows(), 0);
	}
	/* a narrow screen pages the heads too, and the header keeps the layer
	 * (it stands before the settings, which are cut first) */
	harness_resize(&mh.h, 40, 12);
	expect(", heads ");
	char layer[32];
	snprintf(layer, sizeof(layer), "layer %d/12", av_model_ui_layer(&mh.h.a));
	assert_non_null(strstr(harness_line(0), layer));
	close_model(&mh);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(big_dir))
		return -1;
	write_big_model();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	static const char *const files[] = { "model.safetensors", "vocab.json", "merges.txt",
					     "config.json" };
	for (int i = 0; i < 4; i++) {
		char *p = av_printf("%s/%s", big_dir, files[i]);
		unlink(p);
		free(p);
	}
	rmdir(big_dir);
	return 0;
}

int main(void)
{
	utf8 = harness_setup_process();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stepper_layers),
		cmocka_unit_test(test_refused_keys),
		cmocka_unit_test(test_command_prompt),
		cmocka_unit_test(test_token_bytes),
		cmocka_unit_test(test_space_label_ascii),
		cmocka_unit_test(test_pin_names_the_layer),
		cmocka_unit_test(test_scaled_says_sqrt_dk_without_temperature),
		cmocka_unit_test(test_narrow_heading_reads_whole),
		cmocka_unit_test(test_sum_uses_the_free_rows),
		cmocka_unit_test(test_edit_reruns),
		cmocka_unit_test(test_too_long_says_the_limit),
		cmocka_unit_test(test_embedding_keeps_its_decimals),
		cmocka_unit_test(test_layer_norm_keeps_its_last_step),
		cmocka_unit_test(test_keys_while_computing),
		cmocka_unit_test(test_esc_drops_a_run),
		cmocka_unit_test(test_newest_wins),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_quit_while_computing),
		cmocka_unit_test(test_model_view_80x24_pages),
		cmocka_unit_test(test_model_view_200x60),
		cmocka_unit_test(test_model_view_fills_the_panel),
		cmocka_unit_test(test_prediction),
		cmocka_unit_test(test_help_lists_the_views_keys),
		cmocka_unit_test(test_no_color),
		cmocka_unit_test(test_ascii),
		cmocka_unit_test(test_every_size),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
