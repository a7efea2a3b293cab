/* options.c: getopt_long parsing and the setup of a session from options. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "json_read.h"
#include "number.h"
#include "options.h"
#include "util.h"
#include "weights.h"

enum {
	OPT_SAMPLE = 256, OPT_WEIGHTS, OPT_MODE, OPT_SOURCE, OPT_D_MODEL, OPT_HEADS,
	OPT_SCALE, OPT_TEMPERATURE, OPT_POSITIONAL, OPT_BIAS, OPT_NO_BIAS, OPT_SEED,
	OPT_INIT, OPT_MASK_KEYS, OPT_DUMP, OPT_PRINT, OPT_HEAD, OPT_COLOR, OPT_THEME,
	OPT_LIST_SAMPLES, OPT_HELP, OPT_VERSION,
	OPT_TRAIN, OPT_LR, OPT_OPTIMIZER, OPT_TARGET, OPT_TRAIN_PARAMS,
	OPT_LESSON, OPT_LIST_LESSONS, OPT_STEP, OPT_MODEL, OPT_LAYER
};

static const struct option long_options[] = {
	{ "sample", required_argument, NULL, OPT_SAMPLE },
	{ "lesson", required_argument, NULL, OPT_LESSON },
	{ "list-lessons", no_argument, NULL, OPT_LIST_LESSONS },
	{ "step", required_argument, NULL, OPT_STEP },
	{ "weights", required_argument, NULL, OPT_WEIGHTS },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "source", required_argument, NULL, OPT_SOURCE },
	{ "d-model", required_argument, NULL, OPT_D_MODEL },
	{ "heads", required_argument, NULL, OPT_HEADS },
	{ "scale", required_argument, NULL, OPT_SCALE },
	{ "temperature", required_argument, NULL, OPT_TEMPERATURE },
	{ "positional", required_argument, NULL, OPT_POSITIONAL },
	{ "bias", no_argument, NULL, OPT_BIAS },
	{ "no-bias", no_argument, NULL, OPT_NO_BIAS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "init", required_argument, NULL, OPT_INIT },
	{ "mask-keys", required_argument, NULL, OPT_MASK_KEYS },
	{ "dump", required_argument, NULL, OPT_DUMP },
	{ "print", required_argument, NULL, OPT_PRINT },
	{ "head", required_argument, NULL, OPT_HEAD },
	{ "color", optional_argument, NULL, OPT_COLOR },
	{ "colour", optional_argument, NULL, OPT_COLOR },
	{ "theme", required_argument, NULL, OPT_THEME },
	{ "list-samples", no_argument, NULL, OPT_LIST_SAMPLES },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "train", required_argument, NULL, OPT_TRAIN },
	{ "lr", required_argument, NULL, OPT_LR },
	{ "optimizer", required_argument, NULL, OPT_OPTIMIZER },
	{ "target", required_argument, NULL, OPT_TARGET },
	{ "train-params", required_argument, NULL, OPT_TRAIN_PARAMS },
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "layer", required_argument, NULL, OPT_LAYER },
	{ NULL, 0, NULL, 0 }
};

static void print_help(void)
{
	/* TRANSLATORS: --help is printed in pieces; keep every line within 80
	   columns (a Chinese character takes two) and the option names as
	   they are. */
	fputs(_(
"Usage: attnview [OPTION]... [SENTENCE]\n"
"Step through every stage of Transformer attention for SENTENCE, in the\n"
"terminal: embedding, Q/K/V, scores, scaling, masking, softmax, weighted sum,\n"
"output projection and residual, with every number shown.\n"
"\n"), stdout);
	fputs(_(
"Without --dump or --print, attnview opens the interactive screen.\n"
"\n"), stdout);
	fputs(_(
"Setting:\n"
"      --sample=NAME|FILE   sample to load (default: the built-in china-panda)\n"
"      --weights=FILE       load parameters (a weights file or any --dump trace)\n"
"      --lesson=NAME|FILE   a guided lesson (checked whole first); its sample\n"
"                           and weights are used\n"
"      --step=N             with --lesson: the screen opens on step N; with\n"
"                           --print or --dump, step N's state (sentence,\n"
"                           settings, training)\n"
"      --mode=MODE          self, causal (decoder mask) or cross\n"
"      --source=SENTENCE    the encoder's sentence for cross mode (keys, values)\n"
"      --d-model=N          model width D\n"
"      --heads=N            number of heads H (D must be divisible by H)\n"
"      --scale=S            dk (default): divide scores by sqrt(dk), a head's\n"
"                           width (the tutorials' d_k); dmodel: by sqrt(D);\n"
"                           none: by 1\n"
"      --temperature=T      softmax temperature, 0.01 to 100 (default 1)\n"
"      --positional=P       learned, sinusoidal or none\n"
"      --bias, --no-bias    with or without projection biases\n"
"      --seed=N             seed of the parameters (0 to 2^53-1)\n"
"      --init=I             normal (N(0,1)), xavier (Glorot uniform) or torch\n"
"      --mask-keys=LIST     hide key positions, e.g. 0,3 (a padding mask)\n"
"\n"), stdout);
	fputs(_(
"A lesson's steps set SENTENCE, --source, --mode, --scale, --temperature,\n"
"--seed, --init and --mask-keys, and the lesson its layer (--d-model, --heads,\n"
"--positional, --bias): with --lesson those options are refused.\n"
"\n"), stdout);
	fputs(_(
"Without a screen:\n"
"      --dump=FILE          write the whole trace as JSON to FILE (- for stdout)\n"
"      --print=STAGE        print one stage as a table: tokens, embedding,\n"
"                           source_embedding, q, k, v, mask, scores, scaled,\n"
"                           masked, weights, context, concat, output, residual\n"
"      --head=N             the head for per-head stages (default 0; with\n"
"                           --lesson, the step's own)\n"
"      --color[=WHEN]       colour --print tables: auto (default), always (what\n"
"                           --color alone means) or never\n"
"      --list-samples       list the samples attnview can find\n"
"      --list-lessons       list the guided lessons attnview can find\n"
"                           (either takes no other option)\n"
"\n"), stdout);
	fputs(_(
"Training (the china–panda tutorial's loop: one optimiser step per sentence of\n"
"the sample's \"sentences\", pulling the attention weights toward a target\n"
"pattern):\n"
"      --train=EPOCHS       train 1 to 1000000 epochs, then --dump the trace of\n"
"                           the trained layer\n"
"      --lr=X               learning rate (default: the sample's, else 0.01)\n"
"      --optimizer=O        adam (torch.optim.Adam) or sgd (default: the\n"
"                           sample's, else adam)\n"
"      --target=T           self (identity, the tutorial's torch.eye), previous\n"
"                           (the word before) or pairs (the sample's word\n"
"                           pairs); default: the sample's, else self\n"
"      --train-params=P     qkv (W_q, W_k, W_v and their biases; the default) or\n"
"                           all\n"
"\n"), stdout);
	fputs(_(
"Real models (GPT-2 from Hugging Face; tools/get-gpt2.sh downloads one):\n"
"      --model=NAME|DIR     a directory with model.safetensors, vocab.json,\n"
"                           merges.txt (and config.json), or an installed\n"
"                           model's NAME under models/; opens the screen on it\n"
"      --layer=N            the layer the screen, --print and --dump show\n"
"                           (default: the last); --print next lists the\n"
"                           likeliest next tokens, --print layer_input the\n"
"                           layer's input before ln_1\n"
"\n"), stdout);
	fputs(_(
"Screen:\n"
"      --theme=NAME|FILE    colour theme: dark (default), light or mono\n"
"\n"), stdout);
	fputs(_(
"Classroom (students follow the teacher's screen over SSH):\n"
"      --lead=ROOM          teach: publish this screen's state to ROOM\n"
"      --follow=ROOM        follow the teacher of ROOM (its sample is loaded\n"
"                           here by name; with --weights, the teacher's file)\n"
"      --restricted         a student account: no files written or read outside\n"
"                           the installed data, limits on size and epochs\n"
"                           (also forced by /etc/attnview/restricted)\n"
"\n"), stdout);
	fputs(_(
"      --help               show this help and exit\n"
"      --version            show the version and exit\n"
"\n"), stdout);
	printf(_(
"Samples are looked up by name in $ATTNVIEW_DATA_DIR/samples and in\n"
"%s/samples.\n"
"Lessons likewise, in the lessons folders beside them.\n"
"Exit status: 0 on success, 2 on a usage error or bad input.\n"
"See attnview(1) for the keys of the screen and the formats of the files.\n"), PKGDATADIR);
}

static void print_version(void)
{
	printf(_("attnview %s\n"
	       "Copyright (C) 2026 the attnview developers.\n"
	       "License: MIT. There is NO WARRANTY, to the extent permitted by law.\n"),
	       PACKAGE_VERSION);
}

static bool parse_long(const char *opt, const char *arg, long long min, long long max,
		       long long *out, char **cause)
{
	long long v;
	if (!av_integer_parse(arg, &v))
		return av_fail(cause, _("--%s: expected a whole number, got \"%s\""), opt, arg);
	if (v < min || v > max)
		return av_fail(cause, _("--%s: %lld is out of range (%lld to %lld)"), opt, v,
			       min, max);
	*out = v;
	return true;
}

static bool parse_enum(const char *opt, const char *arg, const char *const names[],
		       int *out, char **cause)
{
	if (av_enum_parse(names, arg, out))
		return true;
	char *allowed = av_enum_list(names);
	av_fail(cause, _("--%s: unknown value \"%s\" (allowed: %s)"), opt, arg, allowed);
	free(allowed);
	return false;
}

/* A value checked by the engine's parser (the limits the screen shares),
 * its message prefixed with the option. */
static bool parse_checked(bool (*parse)(const char *, double *, char **), const char *opt,
			  const char *arg, double *out, char **cause)
{
	if (parse(arg, out, cause))
		return true;
	av_cause_prefix(cause, "--%s", opt);
	return false;
}

static bool parse_mask_keys(struct av_options *o, const char *arg, char **cause)
{
	const char *p = arg;
	o->n_hidden_keys = 0;
	while (*p) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		/* a digit first: strtol would skip white space ("0, 3") */
		if (!isdigit((unsigned char)*p) || errno || (*end && *end != ','))
			return av_fail(cause, _("--mask-keys: expected positions like 0,3, got \"%s\""),
				       arg);
		if (v >= AV_MAX_TOKENS)
			return av_fail(cause, _("--mask-keys: position %ld is past the %d-token limit"),
				       v, AV_MAX_TOKENS);
		if (o->n_hidden_keys == AV_MAX_TOKENS)
			return av_fail(cause, _("--mask-keys: too many positions"));
		o->hidden_keys[o->n_hidden_keys++] = (int)v;
		p = *end ? end + 1 : end;
	}
	return true;
}

#define MAX_TRAIN_EPOCHS 1000000   /* as a sample's "training"."epochs" */

/* --train, --lr, --optimizer, --target, --train-params */
static bool parse_train_option(struct av_options *o, int c, const char *arg, char **cause)
{
	int e;
	switch (c) {
	case OPT_TRAIN: {
		long long v;
		if (!av_integer_parse(arg, &v) || v < 1 || v > MAX_TRAIN_EPOCHS)
			return av_fail(cause, _("--train: expected a number of epochs from 1 to %d, "
				       "got \"%s\""), MAX_TRAIN_EPOCHS, arg);
		o->train_epochs = (int)v;
		return true;
	}
	case OPT_LR:
		o->train_given |= AV_GIVEN_LR;
		return parse_checked(av_parse_lr, "lr", arg, &o->train.lr, cause);
	case OPT_OPTIMIZER:
		if (!parse_enum("optimizer", arg, av_optimizer_names, &e, cause))
			return false;
		o->train.optimizer = (enum av_optimizer)e;
		o->train_given |= AV_GIVEN_OPTIMIZER;
		return true;
	case OPT_TARGET:
		if (!parse_enum("target", arg, av_target_names, &e, cause))
			return false;
		o->train.target = (enum av_target)e;
		o->train_given |= AV_GIVEN_TARGET;
		return true;
	case OPT_TRAIN_PARAMS:
		if (!parse_enum("train-params", arg, av_train_set_names, &e, cause))
			return false;
		o->train.params = (enum av_train_set)e;
		o->train_given |= AV_GIVEN_TRAIN_PARAMS;
		return true;
	}
	return av_fail(cause, _("internal error: option %d"), c);
}

/* Options that only --train reads make no sense in the other batch modes. */
static bool check_train_options(const struct av_options *o, char **cause)
{
	static const struct { unsigned bit; const char *name; } opts[] = {
		{ AV_GIVEN_LR, "--lr" }, { AV_GIVEN_OPTIMIZER, "--optimizer" },
		{ AV_GIVEN_TARGET, "--target" }, { AV_GIVEN_TRAIN_PARAMS, "--train-params" },
	};
	if (o->train_epochs && o->model)   /* said by --model's own check (model_cli.c) */
		return true;
	if (o->train_epochs && o->print)
		return av_fail(cause, _("--train and --print cannot be used together "
			       "(--train writes the trained trace with --dump)"));
	if (o->train_epochs && !o->dump)
		return av_fail(cause, _("--train needs --dump FILE (or --dump - for standard "
			       "output): it writes the trace of the trained layer"));
	for (size_t i = 0; !o->train_epochs && (o->dump || o->print) &&
	     i < sizeof(opts) / sizeof(opts[0]); i++)
		if (o->train_given & opts[i].bit)
			return av_fail(cause, _("%s only applies with --train EPOCHS"), opts[i].name);
	return true;
}

void av_options_train_settings(const struct av_options *o, const struct av_sample *sample,
			       struct av_train_settings *set)
{
	av_train_settings_from_sample(set, &sample->training);
	if (o->train_given & AV_GIVEN_LR)
		set->lr = o->train.lr;
	if (o->train_given & AV_GIVEN_OPTIMIZER)
		set->optimizer = o->train.optimizer;
	if (o->train_given & AV_GIVEN_TARGET)
		set->target = o->train.target;
	if (o->train_given & AV_GIVEN_TRAIN_PARAMS)
		set->params = o->train.params;
}

/* Joins the operands into one sentence, as a shell user would expect of
 * `attnview china panda`. */
static void join_operands(struct av_options *o, int argc, char **argv)
{
	size_t len = 1;
	for (int i = optind; i < argc; i++)
		len += strlen(argv[i]) + 1;
	o->sentence_buf = av_calloc(len, 1);
	for (int i = optind; i < argc; i++) {
		if (i > optind)
			strcat(o->sentence_buf, " ");
		strcat(o->sentence_buf, argv[i]);
	}
	o->sentence = o->sentence_buf;
}

/* --d-model, --heads, --seed, --temperature, --mode, --scale, --positional,
 * --init, --bias and --no-bias: the layer's settings (o->cfg), each marked
 * given so that it overrides the sample's (apply_options) */
static bool parse_config_option(struct av_options *o, int c, const char *arg, char **cause)
{
	long long v;
	int e;
	switch (c) {
	case OPT_BIAS: case OPT_NO_BIAS:
		o->cfg.bias = c == OPT_BIAS;
		o->cfg_given |= AV_CFG_BIAS;
		return true;
	case OPT_D_MODEL:
		if (!parse_long("d-model", arg, 1, AV_MAX_D_MODEL, &v, cause))
			return false;
		o->cfg.d_model = (int)v;
		o->cfg_given |= AV_CFG_D_MODEL;
		return true;
	case OPT_HEADS:
		if (!parse_long("heads", arg, 1, AV_MAX_D_MODEL, &v, cause))
			return false;
		o->cfg.heads = (int)v;
		o->cfg_given |= AV_CFG_HEADS;
		return true;
	case OPT_SEED:
		if (!av_parse_seed(arg, &o->cfg.seed, cause)) {
			av_cause_prefix(cause, _("--seed"));
			return false;
		}
		o->cfg_given |= AV_CFG_SEED;
		return true;
	case OPT_TEMPERATURE:
		o->cfg_given |= AV_CFG_TEMPERATURE;
		return parse_checked(av_parse_temperature, "temperature", arg,
				     &o->cfg.temperature, cause);
	case OPT_MODE:
		o->cfg_given |= AV_CFG_MODE;
		if (!parse_enum("mode", arg, av_mode_names, &e, cause))
			return false;
		o->cfg.mode = (enum av_mode)e;
		return true;
	case OPT_SCALE:
		o->cfg_given |= AV_CFG_SCALE;
		if (!parse_enum("scale", arg, av_scale_names, &e, cause))
			return false;
		o->cfg.scale = (enum av_scale)e;
		return true;
	case OPT_POSITIONAL:
		o->cfg_given |= AV_CFG_POSITIONAL;
		if (!parse_enum("positional", arg, av_positional_names, &e, cause))
			return false;
		o->cfg.positional = (enum av_positional)e;
		return true;
	case OPT_INIT:
		o->cfg_given |= AV_CFG_INIT;
		if (!parse_enum("init", arg, av_init_names, &e, cause))
			return false;
		o->cfg.init = (enum av_init)e;
		return true;
	}
	return av_fail(cause, _("internal error: option %d"), c);
}

/* A file (or name) option given "" (--weights=, an unset shell variable)
 * would reach open() and be said as ": No such file or directory". */
static bool take_file_name(const char *opt, const char *arg, const char **out, char **cause)
{
	if (!*arg)
		return av_fail(cause, _("--%s: an empty file name"), opt);
	*out = arg;
	return true;
}

static bool parse_one(struct av_options *o, int c, const char *arg, char **cause)
{
	long long v;
	int e;
	switch (c) {
	case OPT_SAMPLE: return take_file_name("sample", arg, &o->sample, cause);
	case OPT_WEIGHTS:
		/* "-" is stdout for --dump; read as a file name it was "-: No such
		 * file or directory" */
		if (strcmp(arg, "-") == 0)
			return av_fail(cause, _("--weights -: give a file name (standard input "
					       "is /dev/stdin)"));
		return take_file_name("weights", arg, &o->weights, cause);
	case OPT_SOURCE: o->source = arg; return true;
	case OPT_DUMP: return take_file_name("dump", arg, &o->dump, cause);
	case OPT_PRINT: o->print = arg; return true;
	case OPT_THEME: return take_file_name("theme", arg, &o->theme, cause);
	case OPT_LIST_SAMPLES: o->list_samples = true; return true;
	case OPT_LESSON: return take_file_name("lesson", arg, &o->lesson, cause);
	case OPT_LIST_LESSONS: o->list_lessons = true; return true;
	case OPT_MODEL: return take_file_name("model", arg, &o->model, cause);
	case OPT_LAYER:
		/* the top is the model's to say ("the model has layers 0 to 11"),
		 * once it is read; "(0 to 2147483647)" named a bound no model has */
		if (!parse_long("layer", arg, LLONG_MIN, LLONG_MAX, &v, cause))
			return false;
		if (v < 0)
			return av_fail(cause, _("--layer %lld: layers are counted from 0"), v);
		if (v > INT_MAX)
			return av_fail(cause, _("--layer %lld: no model has that many layers"), v);
		o->layer = (int)v;
		return true;
	case OPT_MASK_KEYS:
		o->mask_keys_given = true;
		return parse_mask_keys(o, arg, cause);
	case OPT_TRAIN: case OPT_LR: case OPT_OPTIMIZER: case OPT_TARGET:
	case OPT_TRAIN_PARAMS:
		return parse_train_option(o, c, arg, cause);
	case OPT_STEP:
		if (!parse_long("step", arg, 1, INT_MAX, &v, cause))
			return false;
		o->lesson_step = (int)v;
		return true;
	case OPT_HEAD:
		if (!parse_long("head", arg, 0, INT_MAX, &v, cause))
			return false;
		o->head = (int)v;
		o->head_given = true;
		return true;
	case OPT_BIAS: case OPT_NO_BIAS: case OPT_D_MODEL: case OPT_HEADS: case OPT_SEED:
	case OPT_TEMPERATURE: case OPT_MODE: case OPT_SCALE: case OPT_POSITIONAL: case OPT_INIT:
		return parse_config_option(o, c, arg, cause);
	case OPT_COLOR: {
		static const char *const whens[] = { "auto", "always", "never", NULL };
		if (!arg) {
			o->color = AV_COLOR_ALWAYS;
			return true;
		}
		if (!parse_enum("color", arg, whens, &e, cause))
			return false;
		o->color = (enum av_color_when)e;
		return true;
	}
	}
	return av_fail(cause, _("internal error: option %d"), c);
}

/* --list-samples and --list-lessons only list: another option, or a
 * SENTENCE, would be read by nothing, so it is refused rather than ignored
 * (as tar refuses two of its modes). --restricted and --lead/--follow are
 * taken out before getopt sees argv. */
struct listing_check {
	const char *listing;   /* the first listing option given, or NULL */
	const char *other;     /* the first option given beside it, or NULL */
};

static void note_option(struct listing_check *l, int c, const char *name)
{
	bool lists = c == OPT_LIST_SAMPLES || c == OPT_LIST_LESSONS;
	if (lists && !l->listing)
		l->listing = name;
	else if (!l->other && !(lists && strcmp(name, l->listing) == 0))
		l->other = name;
}

static bool check_listing_alone(const struct listing_check *l, bool sentence, char **cause)
{
	if (!l->listing)
		return true;
	if (l->other)
		return av_fail(cause, _("--%s and --%s cannot be used together "
			       "(a listing reads no other option)"), l->listing, l->other);
	if (sentence)
		return av_fail(cause, _("--%s takes no SENTENCE"), l->listing);
	return true;
}

enum av_parse_result av_options_parse(struct av_options *o, int argc, char **argv,
				      char **cause)
{
	memset(o, 0, sizeof(*o));
	av_config_default(&o->cfg);
	o->layer = -1;
	opterr = 0;
	optind = 1;
	int c, index = -1;
	struct listing_check listing = { 0 };
	while ((c = getopt_long(argc, argv, ":", long_options, &index)) != -1) {
		if (c == OPT_HELP) {
			print_help();
			return AV_PARSE_EXIT_OK;
		}
		if (c == OPT_VERSION) {
			print_version();
			return AV_PARSE_EXIT_OK;
		}
		if (c == '?' || c == ':') {
			const char *what = argv[optind - 1];
			av_fail(cause, c == ':' ? _("option %s needs a value") :
				_("unknown option %s (see attnview --help)"), what);
			return AV_PARSE_ERROR;
		}
		if (!parse_one(o, c, optarg, cause))
			return AV_PARSE_ERROR;
		note_option(&listing, c, long_options[index].name);
	}
	if (optind < argc)
		join_operands(o, argc, argv);
	if (!check_listing_alone(&listing, o->sentence != NULL, cause))
		return AV_PARSE_ERROR;
	return AV_PARSE_RUN;
}

bool av_options_check(const struct av_options *o, char **cause)
{
	if (o->dump && o->print)
		return av_fail(cause, _("--dump and --print cannot be used together"));
	return check_train_options(o, cause);
}

void av_options_free(struct av_options *o)
{
	free(o->sentence_buf);
	o->sentence_buf = NULL;
}

/* --- from options to a session ------------------------------------------ */

static const char *config_key_name(unsigned bit)
{
	switch (bit) {
	case AV_CFG_D_MODEL: return "d-model";
	case AV_CFG_POSITIONAL: return "positional";
	case AV_CFG_BIAS: return "bias";
	case AV_CFG_MAX_POSITIONS: return "max-positions";
	}
	return "?";
}

static void describe(const struct av_config *cfg, unsigned bit, char *buf, size_t size)
{
	switch (bit) {
	case AV_CFG_D_MODEL: snprintf(buf, size, "%d", cfg->d_model); break;
	case AV_CFG_POSITIONAL: snprintf(buf, size, "%s", av_positional_names[cfg->positional]); break;
	case AV_CFG_BIAS: snprintf(buf, size, "%s", cfg->bias ? "true" : "false"); break;
	default: snprintf(buf, size, "?");
	}
}

/* Options that change the shapes of the weights must agree with them. */
static bool check_shape_conflicts(const struct av_options *o, const struct av_config *file,
				  char **cause)
{
	const unsigned shaped[] = { AV_CFG_D_MODEL, AV_CFG_POSITIONAL, AV_CFG_BIAS };
	struct av_config merged = *file;
	for (size_t i = 0; i < sizeof(shaped) / sizeof(shaped[0]); i++) {
		unsigned bit = shaped[i];
		if (!(o->cfg_given & bit))
			continue;
		char want[32], have[32];
		describe(&o->cfg, bit, want, sizeof(want));
		describe(&merged, bit, have, sizeof(have));
		if (strcmp(want, have) != 0)
			return av_fail(cause, _("--%s %s conflicts with the weights file %s, "
				       "which has %s %s"), config_key_name(bit), want, o->weights,
				       config_key_name(bit), have);
	}
	return true;
}

/* Copies the config values given on the command line over cfg. */
static void apply_options(const struct av_options *o, struct av_config *cfg)
{
	unsigned g = o->cfg_given;
	if (g & AV_CFG_D_MODEL) cfg->d_model = o->cfg.d_model;
	if (g & AV_CFG_HEADS) cfg->heads = o->cfg.heads;
	if (g & AV_CFG_MODE) cfg->mode = o->cfg.mode;
	if (g & AV_CFG_SCALE) cfg->scale = o->cfg.scale;
	if (g & AV_CFG_TEMPERATURE) cfg->temperature = o->cfg.temperature;
	if (g & AV_CFG_POSITIONAL) cfg->positional = o->cfg.positional;
	if (g & AV_CFG_BIAS) cfg->bias = o->cfg.bias;
	if (g & AV_CFG_SEED) cfg->seed = o->cfg.seed;
	if (g & AV_CFG_INIT) cfg->init = o->cfg.init;
}

static bool load_sample(const struct av_options *o, struct av_sample *sample, char **cause)
{
	if (o->sample)
		return av_sample_load(o->sample, sample, cause);
	return av_sample_load_builtin(sample, cause);
}

/* What the run will do, for the memory estimate. The screen counts as
 * training: that is one key away. */
static enum av_workload workload(const struct av_options *o)
{
	if (o->train_epochs)
		return AV_WORK_TRAIN;
	if (o->dump)
		return AV_WORK_DUMP;
	return o->print ? AV_WORK_VIEW : AV_WORK_TRAIN;
}

static bool load_params(const struct av_options *o, struct av_session *s, char **cause)
{
	if (!o->weights) {
		apply_options(o, &s->cfg);
		if (!av_config_check(&s->cfg, cause)
		    || !av_check_memory(&s->cfg, s->sample.n_vocab, workload(o), cause))
			return false;
		av_params_init(&s->params, &s->cfg, (const char *const *)s->sample.vocab,
			       s->sample.n_vocab);
		return true;
	}
	unsigned given = 0;
	if (!av_weights_load_trained(o->weights, &s->cfg, &given, &s->params,
				     &s->loaded_training, cause))
		return false;
	s->from_weights = true;
	if (!check_shape_conflicts(o, &s->cfg, cause))
		return false;
	apply_options(o, &s->cfg);
	if (!av_config_check(&s->cfg, cause)
	    || !av_check_memory(&s->cfg, s->params.vocab_size, workload(o), cause)) {
		av_cause_prefix(cause, _("with the weights file %s"), o->weights);
		return false;
	}
	return true;
}

bool av_options_setup(const struct av_options *o, struct av_session *s, char **cause)
{
	memset(s, 0, sizeof(*s));
	if (!load_sample(o, &s->sample, cause))
		return false;
	s->cfg = s->sample.cfg;
	if (!load_params(o, s, cause))
		return false;
	av_session_start(s);
	s->sentence = av_strdup(o->sentence ? o->sentence : s->sample.sentence);
	const char *source = o->source ? o->source : s->sample.source;
	s->source = source ? av_strdup(source) : NULL;
	if (s->cfg.mode == AV_MODE_CROSS && !s->source)
		return av_fail(cause, _("cross mode needs a source sentence: give --source, "
			       "or use a sample that has one"));
	for (int i = 0; i < o->n_hidden_keys; i++)
		s->key_hidden[o->hidden_keys[i]] = true;
	return av_session_run(s, cause);
}
