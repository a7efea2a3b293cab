/* test_follow_numbers.c: av_state_same_numbers (src/follow/sync.c), the
 * check that lets a follower skip the forward pass when the teacher only
 * moved (a stage, a head, the cursor, the view): 300 followers recomputing
 * the same numbers at once made a step of the teacher take 1.4 s to reach
 * the last of them (bench/bench_class, qkv-walkthrough). Every field that
 * changes a number must count as a change, or a student would keep stale
 * numbers: each is changed here one at a time. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "follow/snapshot.h"
#include "follow/sync.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_where_the_teacher_looks),
		cmocka_unit_test(test_what_changes_numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
