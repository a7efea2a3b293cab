/* restricted_limits.h: the limits of --restricted (issue 10, a student's
 * account on a class server), in one place for the two that enforce them:
 * the command line (src/cli/restricted.c) and the screen (the sentence
 * editor, the ':' commands and the training view's run). They keep one
 * student from taking the server's CPU; attnview(1) and doc/teaching.md
 * list them. */
#ifndef AV_RESTRICTED_LIMITS_H
#define AV_RESTRICTED_LIMITS_H

/* bytes of a sentence or a source: --sentence, --source, the editor, and
 * :sentence and :source */
#define AV_RESTRICTED_MAX_SENTENCE_BYTES 256
/* D and H: --d-model, --heads and a sample's config (the screen has no key
 * that changes them) */
#define AV_RESTRICTED_MAX_D_MODEL 512      /* the largest shipped sample (qkv-walkthrough) */
#define AV_RESTRICTED_MAX_HEADS 16
/* epochs of one training run: --train N, and on the screen the trainer's
 * epoch count: Space, s and S stop there (r starts a run again from epoch
 * 0, so every 1000 epochs take a key press: nothing trains unattended) */
#define AV_RESTRICTED_MAX_EPOCHS 1000

#endif
