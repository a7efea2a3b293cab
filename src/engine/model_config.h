/* model_config.h: the settings of one attention layer (a sample's "config"
 * object) and the names of their enum values, shared by the loaders, the
 * command line, the trace and the screen. */
#ifndef AV_MODEL_CONFIG_H
#define AV_MODEL_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

enum av_mode { AV_MODE_SELF, AV_MODE_CAUSAL, AV_MODE_CROSS };
enum av_scale { AV_SCALE_DK, AV_SCALE_DMODEL, AV_SCALE_NONE };
enum av_positional { AV_POS_LEARNED, AV_POS_SINUSOIDAL, AV_POS_NONE };
enum av_init { AV_INIT_NORMAL, AV_INIT_XAVIER, AV_INIT_TORCH };

#define AV_MAX_D_MODEL 4096
#define AV_MAX_POSITIONS 4096

/* The limits every way in shares (--seed/--temperature, a sample's config,
 * the screen's keys and its prompt). Seeds stay exact in JSON (2^53 - 1);
 * the temperature is the one the screen steps through with + and -. */
#define AV_MAX_SEED UINT64_C(9007199254740991)
#define AV_MIN_TEMPERATURE 0.01
#define AV_MAX_TEMPERATURE 100.0

struct av_config {
	int d_model;              /* D */
	int heads;                /* H; D % H == 0 */
	enum av_mode mode;
	enum av_scale scale;
	double temperature;       /* T > 0 */
	enum av_positional positional;
	bool bias;
	uint64_t seed;
	enum av_init init;
	int max_positions;        /* rows of the learned position table */
};

/* A NULL-terminated table of names, indexed by enum value. */
extern const char *const av_mode_names[];
extern const char *const av_scale_names[];
extern const char *const av_positional_names[];
extern const char *const av_init_names[];

/* Looks name up in names; true and *value on success. */
bool av_enum_parse(const char *const names[], const char *name, int *value);

/* "a, b or c", malloc'd: the allowed values for an error message. */
char *av_enum_list(const char *const names[]);

/* The defaults of a config with no keys: D=8, H=2, self, dk, T=1,
 * sinusoidal, no bias, seed 42, normal init, 64 positions. */
void av_config_default(struct av_config *cfg);

/* Checks ranges: D in 1..AV_MAX_D_MODEL, H >= 1 and D % H == 0 (the message
 * says so), T in AV_MIN_TEMPERATURE..AV_MAX_TEMPERATURE, max_positions in 1..AV_MAX_POSITIONS. */
bool av_config_check(const struct av_config *cfg, char **cause);

/* True when every field of a and b is the same. Compare configs with this,
 * never with memcmp: the padding between fields is indeterminate (valgrind
 * reports the reads as uninitialised) and may differ between equal configs. */
bool av_config_equal(const struct av_config *a, const struct av_config *b);

/* --- the memory budget
 * attnview runs on shared teaching servers: a configuration whose estimated
 * memory exceeds AV_MEMORY_BUDGET is refused before anything is allocated
 * (--d-model 4096 --heads 1 used to take 8.8 GB for --dump, 10.6 GB for
 * --train). The estimate is parameters x bytes per parameter for the work,
 * measured at D = 1024 (tools: /usr/bin/time -f %M) and rounded up:
 * viewing (--print, the trace) 12, --dump 40 (the JSON text), training 72
 * (gradients, Adam's moments, the starting copy, then the dump) and 4 for
 * the copies of W^T the screen keeps between keys. The screen counts as
 * training, which is one key away. D = 1600 (GPT-2 XL's width)
 * fits every workload with a small vocabulary. */
#define AV_MEMORY_BUDGET ((double)(1u << 30))

enum av_workload { AV_WORK_VIEW, AV_WORK_DUMP, AV_WORK_TRAIN };

/* The number of parameters of cfg over vocab_size words: V*D, L*D for
 * learned positions, 4*D*D and 4*D for biases. */
double av_config_param_count(const struct av_config *cfg, long vocab_size);

/* Estimated peak bytes of work w on that model. */
double av_memory_estimate(const struct av_config *cfg, long vocab_size, enum av_workload w);

/* False, with a message giving the estimate and the limit, when the
 * estimate exceeds AV_MEMORY_BUDGET. vocab_size counts the words the
 * parameters hold; the tokens a sentence may add are counted here. */
bool av_check_memory(const struct av_config *cfg, long vocab_size, enum av_workload w,
		     char **cause);

/* A seed or a temperature typed as text (an option's value, the screen's
 * prompt), checked against the limits above; on failure *cause says what was
 * expected and what came, without a prefix ("expected a number between 0.01
 * and 100, got \"abc\""): the caller names the option or command. */
bool av_parse_seed(const char *text, uint64_t *out, char **cause);
bool av_parse_temperature(const char *text, double *out, char **cause);

/* dh = D / H */
int av_config_head_dim(const struct av_config *cfg);

/* The divisor of the scaled stage: s * T with s = sqrt(dh), sqrt(D) or 1. */
double av_config_divisor(const struct av_config *cfg);

#endif
