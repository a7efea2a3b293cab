/* test_follow_numbers.c: av_state_same_numbers (src/follow/sync.c), the
 * check that lets a follower skip the forward pass when the teacher only
 * moved (a stage, a head, the cursor, the view, its first row and column):
 * 300 followers recomputing the same numbers at once made a step of the
 * teacher take 1.4 s to reach the last of them (bench/bench_class,
 * qkv-walkthrough). Every field that changes a number must count as a
 * change, or a student would keep stale numbers: each is changed here one
 * at a time. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "follow/snapshot.h"
#include "follow/sync.h"
#include "session.h"
#include "util.h"
#include "same_numbers.h"

static struct av_state base(void)
{
	struct av_state s;
	av_state_init(&s);
	strcpy(s.sentence, "china panda japan");
	s.seq = 7;
	return s;
}

static void test_where_the_teacher_looks(void **state)
{
	(void)state;
	struct av_state a = base(), b;

	b = a; b.seq = 8;                      assert_true(av_state_same_numbers(&a, &b));
	b = a; b.stage = 4;                    assert_true(av_state_same_numbers(&a, &b));
	b = a; b.view = AV_SNAP_VIEW_HEADS;    assert_true(av_state_same_numbers(&a, &b));
	b = a; b.head = 1;                     assert_true(av_state_same_numbers(&a, &b));
	b = a; b.query = 2; b.key = 1;         assert_true(av_state_same_numbers(&a, &b));
	b = a; b.row = 3; b.col = 2;           assert_true(av_state_same_numbers(&a, &b));
	b = a; b.first_row = 2; b.first_col = 10;
	assert_true(av_state_same_numbers(&a, &b));
}

static void test_what_changes_numbers(void **state)
{
	(void)state;
	struct av_state a = base(), b;

	b = a; strcpy(b.sentence, "china panda");    assert_false(av_state_same_numbers(&a, &b));
	b = a; b.has_source = true; strcpy(b.source, "japan");
	assert_false(av_state_same_numbers(&a, &b));
	b = a; b.mode = AV_MODE_CAUSAL;              assert_false(av_state_same_numbers(&a, &b));
	b = a; b.scale = AV_SCALE_NONE;              assert_false(av_state_same_numbers(&a, &b));
	b = a; b.temperature = 2.0;                  assert_false(av_state_same_numbers(&a, &b));
	b = a; b.seed = a.seed + 1;                  assert_false(av_state_same_numbers(&a, &b));
	b = a; b.key_hidden[1] = true;               assert_false(av_state_same_numbers(&a, &b));
	b = a; b.content_hash ^= 1;                  assert_false(av_state_same_numbers(&a, &b));
	b = a; b.training.active = true; b.training.epochs = 3;
	assert_false(av_state_same_numbers(&a, &b));
	b = a; b.lesson_step = 2;                    assert_false(av_state_same_numbers(&a, &b));
}

/* --- av_state_apply after a change of the mask, the mode, the temperature:
 * the stages from the mask on are run again (av_session_reattend), and the
 * student's numbers are still the teacher's, bit for bit */

static void start_session(struct av_session *s, const char *sentence)
{
	char *cause = NULL;

	memset(s, 0, sizeof *s);
	assert_true(av_sample_load_builtin(&s->sample, &cause));
	s->cfg = s->sample.cfg;
	av_params_init(&s->params, &s->cfg, (const char *const *)s->sample.vocab,
		       s->sample.n_vocab);
	av_session_start(s);
	s->sentence = av_strdup(sentence);
	assert_true(av_session_run(s, &cause));
}

static struct av_state captured(const struct av_session *s)
{
	struct av_state snap;
	char *cause = NULL;

	av_state_init(&snap);
	snprintf(snap.sample, sizeof snap.sample, "%s", s->sample.name);
	assert_true(av_state_capture(&snap, s, &cause));
	return snap;
}

static void test_apply_after_a_mask_change(void **state)
{
	(void)state;
	struct av_session leader, follower;
	struct av_state a, b;
	char *cause = NULL;

	start_session(&leader, "china panda japan cherry");
	start_session(&follower, "panda");
	a = captured(&leader);
	assert_true(av_state_apply(&follower, NULL, &a, NULL, &cause));
	assert_same_numbers(&leader, &follower);
	/* the teacher hides a key, goes causal, warms the softmax */
	leader.key_hidden[2] = true;
	leader.cfg.mode = AV_MODE_CAUSAL;
	leader.cfg.temperature = 2.5;
	assert_true(av_session_run(&leader, &cause));
	b = captured(&leader);
	assert_true(av_state_apply(&follower, &a, &b, NULL, &cause));
	assert_same_numbers(&leader, &follower);
	/* and a new sentence after that runs from the start */
	assert_true(av_session_set_sentence(&leader, "cherry japan", &cause));
	a = b;
	b = captured(&leader);
	assert_true(av_state_apply(&follower, &a, &b, NULL, &cause));
	assert_same_numbers(&leader, &follower);
	av_session_free(&leader);
	av_session_free(&follower);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_where_the_teacher_looks),
		cmocka_unit_test(test_what_changes_numbers),
		cmocka_unit_test(test_apply_after_a_mask_change),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
