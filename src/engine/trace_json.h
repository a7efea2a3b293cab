/* trace_json.h: the trace as JSON (--dump), which is also a weights file. */
#ifndef AV_TRACE_JSON_H
#define AV_TRACE_JSON_H

#include <stdbool.h>
#include <cjson/cJSON.h>
#include "attention.h"

/* Optional training record written as "training" (issue: training mode):
 * how the weights written were trained (--train, or the screen's W after
 * the training view). */
struct av_training_record {
	int epochs;
	double lr;            /* the settings the run ended with; NAN, NULL and */
	const char *optimizer;  /* NULL: not known (a file's record without */
	const char *target;     /* them), left out */
	const double *loss;   /* epochs entries, or NULL when not kept (a lesson's
				 step, a teacher's run): "loss" is left out */
	int steps;            /* sentences of the next epoch done (the screen's
				 "trained 2 ep+1"); "steps" only when not 0 */
	int epochs_before;    /* epochs the weights had had before this run (a
				 trained file's, the screen's "trained 200+3
				 ep"); "epochs_before" only when not 0 */
};

/* The record of a run of epochs (and steps of the next) under lr,
 * optimizer and target given as their enum values (sample.h), -1 and NAN
 * where not known (then left out); no loss list, no epochs before. The
 * strings are static. */
struct av_training_record av_training_record_of(int epochs, int steps, double lr,
						int optimizer, int target);

/* {"config": ...} as a weights/sample file spells it. */
cJSON *av_config_to_json(const struct av_config *cfg);

/* {"vocab": [...], "token_embedding": ..., ...} */
cJSON *av_params_to_json(const struct av_params *p);

/* {"epochs": 3, "steps": 1, "epochs_before": 200, "lr": ..., "optimizer": ...,
 *  "target": ..., "loss": [...]} (steps and epochs_before when not 0) */
cJSON *av_training_to_json(const struct av_training_record *r);

/* The whole trace document (format attnview-trace, version 1). training
 * may be NULL. */
cJSON *av_trace_to_json(const struct av_trace *t, const struct av_params *p,
			const struct av_training_record *training);

/* The document of av_trace_to_json followed by a newline, byte for byte
 * what av_json_print of it gives plus "\n", written to fd as it is made
 * (a 64 KB buffer instead of a tree as large as the trace: --dump). false
 * with *err (may be NULL) set to the errno of a failed write. When fd is a
 * terminal whose locale is not UTF-8 (av_fd_wants_ascii) its strings
 * are spelled as av_json_escape_ascii does instead; a file or a pipe gets
 * the same bytes in every locale. */
bool av_trace_json_write(int fd, const struct av_trace *t, const struct av_params *p,
			 const struct av_training_record *training, int *err);

/* Prints a document with numbers as %.9g (round-trips float32), malloc'd;
 * invisible characters spelled as av_json_escape_invisible does. */
char *av_json_print(const cJSON *doc);

/* JSON text (as cJSON prints it: every byte past ASCII is inside a string)
 * with each invisible character (av_cp_invisible: controls, bidi and other
 * format characters) written as its \uXXXX escape, two for one past
 * U+FFFF, malloc'd. A reader gets the same strings, but a terminal shown
 * the file (cat, --dump -) no longer obeys a U+202E from a sentence and
 * shows the rest of the line reversed. Printable text (é, 中) stays UTF-8;
 * a byte that is not UTF-8 is copied as it is. */
char *av_json_escape_invisible(const char *text);

/* The same with every character past ASCII escaped (\u00e9, \u4e2d, a
 * surrogate pair past U+FFFF): the same strings to a reader, for a
 * terminal whose locale is not UTF-8, where UTF-8 would be mojibake and
 * its bytes 0x80 to 0x9f C1 controls. A byte that is not UTF-8 becomes
 * \ufffd. */
char *av_json_escape_ascii(const char *text);

#endif
