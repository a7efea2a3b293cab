/* model_ui.h: the screen on a real GPT-2 (--model, issue 12; view_model.c).
 *
 * The stepper and the all-heads view show one layer of the model through
 * the session's trace (av_gpt2_trace_layer fills it), so they need not know
 * a model is there. What does know is here: [ and ] change the layer, M
 * opens the model view (every layer x head, the next-token prediction), e
 * re-runs the model on the new sentence, and the keys that would change the
 * teaching layer (mask, mode, scale, seed, training, ...) say why they do
 * nothing for a published model. app.c calls these hooks only when
 * a->model is set. */
#ifndef AV_UI_MODEL_UI_H
#define AV_UI_MODEL_UI_H

#include <stdbool.h>
#include <stddef.h>
#include "ui/app.h"

/* Runs the model (cfg->gpt2) on the session's sentence and puts layer
 * cfg->gpt2_layer into s->trace. false + *cause when the sentence does
 * not run. */
bool av_model_ui_start(struct av_app *a, const struct av_ui_config *cfg, char **cause);
void av_model_ui_free(struct av_app *a);

/* The global keys of the model screen, before the view's: true = used. */
bool av_model_ui_key(struct av_app *a, int key, enum av_action act);

/* Why the key of act does nothing for a published model (the status line
 * says it when the key is pressed, the : prompt for the command that does
 * the same), or NULL when it works here. */
const char *av_model_ui_refusal(enum av_action act);

/* The sentence editor's text: tokenised and run; on failure the old run
 * stays and *cause says why. */
bool av_model_ui_set_sentence(struct av_app *a, const char *text, char **cause);

/* The forward runs in a worker thread (model_worker.h): set_sentence
 * posts the text and returns; busy says a newer sentence than the one on
 * screen is being computed; fd is readable when it is done (-1 without a
 * worker), and collect, on the UI thread, swaps the finished run in (true
 * when the screen changed). */
bool av_model_ui_busy(const struct av_app *a);
int av_model_ui_fd(const struct av_app *a);
bool av_model_ui_collect(struct av_app *a);

/* For the tests: hold the worker before its next forward (or let it go),
 * wait until nothing is pending or computing (or the job taken is held),
 * count the forwards run. */
void av_model_ui_test_hold(struct av_app *a, bool hold);
void av_model_ui_test_wait(struct av_app *a);
int av_model_ui_test_forwards(const struct av_app *a);

/* "layer 5/12" for the header (buf), the model's name; the status line's
 * hints for the view on screen. */
void av_model_ui_layer_text(const struct av_app *a, char *buf, size_t size);
const char *av_model_ui_name(const struct av_app *a);
const char *av_model_ui_hints(const struct av_app *a);

/* The inspector's weights of the layer shown: Q, K and V are column blocks
 * of GPT-2's c_attn (C, 3C), the output its attn.c_proj (C, C), both
 * (in, out) as Conv1D keeps them. */
struct av_insp_weights;
void av_model_ui_weights(const struct av_app *a, struct av_insp_weights *out);

/* The bytes of the tokens on screen, for the inspector (inspector.h). */
struct av_insp_bytes;
void av_model_ui_token_bytes(const struct av_app *a, struct av_insp_bytes *out);

/* For the tests: the layer shown, the next-token top k (ids and
 * probabilities, most likely first; returns the count). */
int av_model_ui_layer(const struct av_app *a);
int av_model_ui_top(const struct av_app *a, int k, int *ids, double *probs);

#endif
