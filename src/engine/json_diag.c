/* json_diag.c: saying what is wrong with JSON that cJSON refused, and
 * refusing what cJSON reads that JSON does not allow.
 *
 * cJSON gives only the place where it stopped, and "JSON syntax error"
 * there left a teacher who wrote a sample by hand guessing: a missing
 * comma, a trailing one, single quotes and an unclosed string all read the
 * same. So once cJSON has failed, this scanner reads the text again from
 * the start, as leniently as cJSON does (any byte of 32 or below is space,
 * a string may hold raw newlines and bytes that are not UTF-8, a number is
 * what strtod reads), keeping only what a message needs: the brackets
 * open, the last key, what may come next. At the first thing it cannot
 * accept it says what it found and what was expected. It never reads past
 * the text, keeps one fixed-size stack (cJSON's nesting limit), and is
 * linear; anything it shows of the text is escaped.
 * The same scanner, strict, reads text cJSON accepted as RFC 8259 has it
 * (av_json_strict_problem): a space is one of four bytes, a string holds
 * no byte below 32 and only UTF-8, a number has no leading zero and a
 * digit on each side of its '.'. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cjson/cJSON.h>

#include "i18n.h"
#include "json_diag.h"
#include "utf8.h"
#include "util.h"

/* What may come next. */
enum expect {
	WANT_VALUE,        /* after ':' or a list's ',', and at the start */
	WANT_FIRST_VALUE,  /* after '[': a value or ']' */
	WANT_FIRST_KEY,    /* after '{': a key or '}' */
	WANT_KEY,          /* after an object's ',' */
	WANT_COLON,        /* after a key */
	WANT_COMMA,        /* after a value in a list or object: ',' or its bracket */
	WANT_END,          /* after the top-level value: nothing */
};

enum problem {
	NO_PROBLEM,
	GAVE_UP,           /* deeper than cJSON goes, or past where it stopped */
	END_OF_TEXT,
	STRING_OVER_LINES, /* a string that holds a raw newline, not closed on its line */
	UNCLOSED_STRING,   /* a string that runs to the end of the text */
	BAD_ESCAPE,
	SHORT_U_ESCAPE,
	LONE_SURROGATE,
	UNEXPECTED,        /* a character that cannot come next */
	/* what cJSON lets through and JSON does not (strict scans only) */
	CONTROL_OUTSIDE,   /* a control byte other than tab, CR, LF between tokens */
	RAW_CONTROL,       /* a byte below 32 inside a string */
	STRING_NOT_UTF8,   /* a byte that is not UTF-8 inside a string */
	LEADING_ZERO,      /* 07 */
	BARE_DOT,          /* 1. or -.5: a '.' without a digit on each side */
};

/* The last token, for the hints that look one token back. */
enum token { TOKEN_OTHER, TOKEN_ZERO, TOKEN_STRING_OVER_LINES };

struct level {
	char bracket;            /* '{' or '[' */
	size_t opened_at;
	size_t key_at, key_len;  /* an object's last key, inside its quotes */
	int items;               /* the values a list has so far */
};

struct scan {
	const char *text;
	size_t len, i;
	size_t stop;             /* where cJSON stopped: no token starts past it */
	bool strict;             /* JSON as RFC 8259 has it, not as cJSON reads it */
	enum expect expect;
	struct level *levels;    /* CJSON_NESTING_LIMIT of them */
	int depth;
	char top_bracket;        /* of the top-level value, 0 if it is none */
	size_t top_closed_at;
	enum token token, last_token;
	size_t string_at;        /* the opening quote of the last string */
	enum problem problem;
	size_t problem_at;
};

static void fail_at(struct scan *s, enum problem problem, size_t at)
{
	s->problem = problem;
	s->problem_at = at;
}

static struct level *top(struct scan *s)
{
	return &s->levels[s->depth - 1];
}

static bool is_json_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* cJSON's whitespace: every byte from 0 to 32; JSON's: four of them. */
static void skip_space(struct scan *s)
{
	for (; s->i < s->len && (unsigned char)s->text[s->i] <= 32; s->i++)
		if (s->strict && !is_json_space(s->text[s->i])) {
			fail_at(s, CONTROL_OUTSIDE, s->i);
			return;
		}
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The UTF-16 unit of the \u escape at e (its backslash), or -1 when four
 * hex digits do not follow within the text. */
static long u_escape(const struct scan *s, size_t e)
{
	if (e + 6 > s->len || s->text[e + 1] != 'u')
		return -1;
	long unit = 0;
	for (size_t k = e + 2; k < e + 6; k++) {
		char c = s->text[k];
		if (!is_hex(c))
			return -1;
		unit = unit * 16 + (is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	return unit;
}

/* The escape whose backslash is at e: the bytes it takes, or 0 with the
 * problem set. A surrogate's other half must follow it, as cJSON wants. */
static size_t escape_length(struct scan *s, size_t e)
{
	if (strchr("\"\\/bfnrt", s->text[e + 1]))
		return 2;
	if (s->text[e + 1] != 'u') {
		fail_at(s, BAD_ESCAPE, e);
		return 0;
	}
	long unit = u_escape(s, e);
	if (unit < 0) {
		fail_at(s, SHORT_U_ESCAPE, e);
		return 0;
	}
	if (unit < 0xD800 || unit > 0xDFFF)
		return 6;
	long low = unit <= 0xDBFF ? u_escape(s, e + 6) : -1;
	if (low < 0xDC00 || low > 0xDFFF) {
		fail_at(s, LONE_SURROGATE, e);
		return 0;
	}
	return 12;
}

/* The bytes of the character at j in a string (not a backslash), or 0
 * with the problem set when JSON does not allow it there raw. */
static size_t strict_string_char(struct scan *s, size_t j)
{
	unsigned char c = (unsigned char)s->text[j];
	if (c < 32) {
		fail_at(s, RAW_CONTROL, j);
		return 0;
	}
	if (c < 0x80)
		return 1;
	uint32_t cp;
	int n = av_utf8_decode(s->text + j, s->len - j, &cp);
	if (n <= 0) {
		fail_at(s, STRING_NOT_UTF8, j);
		return 0;
	}
	return (size_t)n;
}

/* The string whose quote is at s->i; false with the problem set. */
static bool string_token(struct scan *s)
{
	size_t quote = s->i, j = quote + 1;
	bool over_lines = false;
	while (j < s->len && s->text[j] != '"') {
		over_lines |= s->text[j] == '\n';
		if (s->strict && s->text[j] != '\\') {
			size_t n = strict_string_char(s, j);
			if (n == 0)
				return false;
			j += n;
		} else if (s->text[j] != '\\') {
			j++;
		} else if (j + 1 >= s->len) {
			break;
		} else {
			size_t n = escape_length(s, j);
			if (n == 0)
				return false;
			j += n;
		}
	}
	if (j >= s->len) {
		fail_at(s, over_lines ? STRING_OVER_LINES : UNCLOSED_STRING, quote);
		return false;
	}
	s->string_at = quote;
	s->token = over_lines ? TOKEN_STRING_OVER_LINES : TOKEN_OTHER;
	s->i = j + 1;
	return true;
}

/* How many bytes at t (left of them) strtod reads as a decimal number: 0
 * when none (cJSON reads a number with strtod, so "1." and "-.5" pass). */
static size_t number_length(const char *t, size_t left)
{
	size_t k = 0, digits = 0;
	if (k < left && t[k] == '-')
		k++;
	for (; k < left && is_digit(t[k]); k++)
		digits++;
	if (k < left && t[k] == '.')
		for (k++; k < left && is_digit(t[k]); k++)
			digits++;
	if (digits == 0)
		return 0;
	if (k < left && (t[k] == 'e' || t[k] == 'E')) {
		size_t e = k + 1;
		if (e < left && (t[e] == '+' || t[e] == '-'))
			e++;
		if (e < left && is_digit(t[e])) {
			while (e < left && is_digit(t[e]))
				e++;
			k = e;
		}
	}
	return k;
}

/* What JSON's grammar refuses in the n bytes of a number strtod read at t
 * (NO_PROBLEM when nothing), and where, from t: a leading zero, or a '.'
 * without a digit before it or after it. */
static enum problem strict_number(const char *t, size_t n, size_t *at)
{
	size_t k = t[0] == '-';
	*at = k;
	if (k < n && t[k] == '.')
		return BARE_DOT;
	if (k + 1 < n && t[k] == '0' && is_digit(t[k + 1]))
		return LEADING_ZERO;
	while (k < n && is_digit(t[k]))
		k++;
	*at = k;
	if (k < n && t[k] == '.' && (k + 1 >= n || !is_digit(t[k + 1])))
		return BARE_DOT;
	return NO_PROBLEM;
}

static bool literal(struct scan *s, const char *word)
{
	size_t n = strlen(word);
	if (s->i + n > s->len || memcmp(s->text + s->i, word, n) != 0)
		return false;
	s->i += n;
	return true;
}

static void after_value(struct scan *s)
{
	if (s->depth == 0) {
		s->expect = WANT_END;
		s->top_closed_at = s->i - 1;
		return;
	}
	top(s)->items++;
	s->expect = WANT_COMMA;
}

static void open_level(struct scan *s, char bracket)
{
	if (s->depth == CJSON_NESTING_LIMIT) {
		fail_at(s, GAVE_UP, s->i);   /* json_read.c says "nested deeper" */
		return;
	}
	if (s->depth == 0)
		s->top_bracket = bracket;
	s->levels[s->depth++] = (struct level){ .bracket = bracket, .opened_at = s->i };
	s->i++;
	s->expect = bracket == '{' ? WANT_FIRST_KEY : WANT_FIRST_VALUE;
}

static void close_level(struct scan *s)
{
	s->i++;
	s->depth--;
	after_value(s);
}

static void value(struct scan *s)
{
	char c = s->text[s->i];
	if (c == '{' || c == '[') {
		open_level(s, c);
	} else if (c == '"') {
		if (string_token(s))
			after_value(s);
	} else if (c == '-' || is_digit(c)) {
		size_t n = number_length(s->text + s->i, s->len - s->i);
		if (n == 0) {
			fail_at(s, UNEXPECTED, s->i);
			return;
		}
		size_t off;
		enum problem p = s->strict ? strict_number(s->text + s->i, n, &off) : NO_PROBLEM;
		if (p != NO_PROBLEM) {
			fail_at(s, p, p == LEADING_ZERO ? s->i : s->i + off);
			return;
		}
		bool zero = n == 1 + (c == '-') && s->text[s->i + n - 1] == '0';
		s->token = zero ? TOKEN_ZERO : TOKEN_OTHER;
		s->i += n;
		after_value(s);
	} else if (literal(s, "true") || literal(s, "false") || literal(s, "null")) {
		after_value(s);
	} else {
		fail_at(s, UNEXPECTED, s->i);
	}
}

static void key(struct scan *s)
{
	if (s->text[s->i] != '"') {
		fail_at(s, UNEXPECTED, s->i);
		return;
	}
	if (!string_token(s))
		return;
	top(s)->key_at = s->string_at + 1;
	top(s)->key_len = s->i - s->string_at - 2;
	s->expect = WANT_COLON;
}

static void comma_or_close(struct scan *s)
{
	char c = s->text[s->i];
	bool object = top(s)->bracket == '{';
	if (c == ',') {
		s->i++;
		s->expect = object ? WANT_KEY : WANT_VALUE;
	} else if (c == (object ? '}' : ']')) {
		close_level(s);
	} else {
		fail_at(s, UNEXPECTED, s->i);
	}
}

/* One token at s->i (not space, not the end). */
static void step(struct scan *s)
{
	char c = s->text[s->i];
	s->last_token = s->token;
	s->token = TOKEN_OTHER;
	switch (s->expect) {
	case WANT_FIRST_VALUE:
	case WANT_FIRST_KEY:
		if (c == (s->expect == WANT_FIRST_KEY ? '}' : ']')) {
			close_level(s);
			return;
		}
		if (s->expect == WANT_FIRST_KEY)
			key(s);
		else
			value(s);
		return;
	case WANT_VALUE:
		value(s);
		return;
	case WANT_KEY:
		key(s);
		return;
	case WANT_COLON:
		if (c != ':') {
			fail_at(s, UNEXPECTED, s->i);
			return;
		}
		s->i++;
		s->expect = WANT_VALUE;
		return;
	case WANT_COMMA:
		comma_or_close(s);
		return;
	case WANT_END:
		fail_at(s, UNEXPECTED, s->i);
		return;
	}
}

static void scan_text(struct scan *s)
{
	while (s->problem == NO_PROBLEM) {
		skip_space(s);
		if (s->problem != NO_PROBLEM)
			return;
		if (s->i >= s->len) {
			if (s->expect != WANT_END)
				fail_at(s, END_OF_TEXT, s->len);
			return;
		}
		if (s->i > s->stop) {
			fail_at(s, GAVE_UP, s->i);
			return;
		}
		step(s);
	}
	/* a string left open over a line end is likelier the mistake than what
	 * follows it (its closing quote was the next string's opening one) */
	if (s->problem == UNEXPECTED && s->last_token == TOKEN_STRING_OVER_LINES)
		fail_at(s, STRING_OVER_LINES, s->string_at);
}

/* cJSON stops at a problem, one character past it (a key that is not a
 * string), or past the last byte (text not ending in a NUL). */
static bool agrees(const struct scan *s, size_t stop)
{
	if (s->problem == NO_PROBLEM || s->problem == GAVE_UP)
		return false;
	return s->problem_at <= stop || (s->problem == END_OF_TEXT && stop + 1 >= s->len);
}

/* --- the messages */

static int line_of(const struct scan *s, size_t at)
{
	int line = 1;
	for (size_t k = 0; k < at && k < s->len; k++)
		line += s->text[k] == '\n';
	return line;
}

static bool starts(const struct scan *s, size_t at, const char *prefix)
{
	size_t n = strlen(prefix);
	return at + n <= s->len && memcmp(s->text + at, prefix, n) == 0;
}

/* The character at `at` (before the end), escaped and quoted: 'x', '\x7f'. */
static char *found_char(const struct scan *s, size_t at)
{
	char shown[12];
	av_escape_controls_next(s->text + at, s->len - at, shown);
	return av_printf("'%s'", shown);
}

/* The last key of the innermost object, escaped (av_escape). */
static char *key_shown(const struct scan *s)
{
	const struct level *l = &s->levels[s->depth - 1];
	/* enough bytes for the AV_ESCAPE_MAX_CHARS characters shown and one more */
	char key[4 * AV_ESCAPE_MAX_CHARS + 5];
	size_t n = l->key_len < sizeof key - 1 ? l->key_len : sizeof key - 1;
	memcpy(key, s->text + l->key_at, n);
	key[n] = '\0';
	return av_escape(key);
}

/* The word (ASCII letters, digits, '_') at `at`, at most 32 of them, into
 * word[33]: safe to show as it is. */
static size_t word_at(const struct scan *s, size_t at, char word[static 33])
{
	size_t n = 0;
	for (; n < 32 && at + n < s->len; n++) {
		char c = s->text[at + n];
		if (!(is_digit(c) || c == '_' || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')))
			break;
		word[n] = c;
	}
	word[n] = '\0';
	return n;
}

/* A character wrong wherever it comes, or NULL. */
static char *odd_character(const struct scan *s, size_t at, const char *found)
{
	if (starts(s, at, "//") || starts(s, at, "/*"))
		return av_strdup(_("comments ('//' and '/* */') are not allowed in JSON"));
	if (starts(s, at, "\xef\xbb\xbf"))
		return av_strdup(_("a byte order mark (U+FEFF) is allowed only at the very start "
				   "of the file"));
	if (s->text[at] == '\'')
		return av_strdup(_("single quotes: JSON strings use double quotes"));
	uint32_t cp;
	if (av_utf8_decode(s->text + at, s->len - at, &cp) < 0)
		return av_printf(_("invalid UTF-8 byte %s (is the file saved as UTF-8?)"), found);
	if (cp == 0x2018 || cp == 0x2019 || cp == 0x201c || cp == 0x201d)
		return av_printf(_("curly quote %s: JSON strings use straight double quotes (\")"),
				 found);
	if (av_cp_invisible(cp))
		return av_printf(_("invisible character %s outside a string"), found);
	return NULL;
}

static bool one_of_nocase(const char *word, const char *const words[])
{
	for (int k = 0; words[k]; k++)
		if (strcasecmp(word, words[k]) == 0)
			return true;
	return false;
}

static bool prefix_of_literal(const char *word)
{
	size_t n = strlen(word);
	return n > 0 && (!strncmp(word, "true", n) || !strncmp(word, "false", n) ||
			 !strncmp(word, "null", n));
}

/* What is wrong with a value that does not start right, or NULL. */
static char *odd_value(const struct scan *s, size_t at)
{
	static const char *const not_numbers[] = { "nan", "inf", "infinity", NULL };
	static const char *const literals[] = { "true", "false", "null", NULL };
	char c = s->text[at], word[33];
	bool sign = c == '-' || c == '+';
	if (word_at(s, at + sign, word) > 0 && one_of_nocase(word, not_numbers))
		return av_printf(_("'%.*s': JSON has no NaN or Infinity"),
				 (int)(sign + strlen(word)), s->text + at);
	if (c == '+')
		return av_strdup(_("a JSON number cannot start with '+'"));
	if (c == '.')
		return av_strdup(_("a JSON number needs a digit before its '.' (0.5, not .5)"));
	if (c == '-')
		return av_strdup(_("'-' must be followed by a digit"));
	if (word[0] == '\0')
		return NULL;
	if (one_of_nocase(word, literals))
		return av_printf(_("'%s': JSON writes true, false and null in lowercase"), word);
	if (strcmp(word, "None") == 0)
		return av_strdup(_("'None' is Python's: JSON writes null"));
	if (prefix_of_literal(word))
		return av_printf(_("'%s' is cut short: did you mean true, false or null?"), word);
	return av_printf(_("unquoted text '%s': JSON strings need double quotes"), word);
}

static char *odd_key(const struct scan *s, size_t at)
{
	char word[33];
	if (word_at(s, at, word) == 0)
		return NULL;
	return av_printf(_("unquoted key '%s': JSON keys need double quotes"), word);
}

/* After a value in a list or an object. */
static char *after_item(const struct scan *s, char c, const char *found)
{
	const struct level *l = &s->levels[s->depth - 1];
	if ((c == 'x' || c == 'X') && s->last_token == TOKEN_ZERO)
		return av_strdup(_("hexadecimal numbers are not JSON: write them in decimal"));
	if (l->bracket == '[')
		return av_printf(_("expected ',' or ']' after item %d of the list, found %s"),
				 l->items, found);
	char *key = key_shown(s);
	char *message = av_printf(_("expected ',' or '}' after the member \"%s\", found %s"),
				  key, found);
	free(key);
	return message;
}

static char *after_end(const struct scan *s, char c, const char *found)
{
	int line = line_of(s, s->top_closed_at);
	if (s->top_bracket != '{')
		return av_printf(_("text after the end of the JSON value, found %s"), found);
	if (c == '}' || c == ']')
		return av_printf(_("an extra '%c' after the end of the object (it closed on line "
				   "%d)"), c, line);
	return av_printf(_("text after the end of the object (it closed on line %d), found %s"),
			 line, found);
}

static char *value_expected(const struct scan *s, char c, const char *found)
{
	if (s->depth == 0)
		return av_printf(_("expected a JSON object ('{'), found %s"), found);
	if (s->levels[s->depth - 1].bracket == '[') {
		if (c == ']')
			return av_strdup(_("trailing comma before ']' (JSON allows none)"));
		return av_printf(_("expected a value, found %s"), found);
	}
	char *key = key_shown(s);
	char *message = av_printf(_("expected a value for the key \"%s\", found %s"), key, found);
	free(key);
	return message;
}

/* A closing bracket where the innermost one may close (after its opening
 * one or a value in it), but not of its kind; NULL for any other. */
static char *wrong_bracket(const struct scan *s, char c)
{
	if ((c != '}' && c != ']') || (s->expect != WANT_COMMA && s->expect != WANT_FIRST_KEY &&
				       s->expect != WANT_FIRST_VALUE))
		return NULL;
	const struct level *l = &s->levels[s->depth - 1];
	return av_printf(_("'%c' does not close the '%c' from line %d (expected '%c')"),
			 c, l->bracket, line_of(s, l->opened_at), l->bracket == '{' ? '}' : ']');
}

/* What was expected where the character at `at` came. */
static char *expected(const struct scan *s, size_t at, const char *found)
{
	char c = s->text[at];
	char *wrong = wrong_bracket(s, c);
	if (wrong)
		return wrong;
	switch (s->expect) {
	case WANT_VALUE:
		return value_expected(s, c, found);
	case WANT_FIRST_VALUE:
		return av_printf(_("expected a value or ']', found %s"), found);
	case WANT_KEY:
		if (c == '}')
			return av_strdup(_("trailing comma before '}' (JSON allows none)"));
		return av_printf(_("expected a key in double quotes after ',', found %s"), found);
	case WANT_FIRST_KEY:
		return av_printf(_("expected a key in double quotes or '}', found %s"), found);
	case WANT_COLON: {
		char *key = key_shown(s);
		char *message = av_printf(_("expected ':' after the key \"%s\", found %s"), key,
					  found);
		free(key);
		return message;
	}
	case WANT_COMMA:
		return after_item(s, c, found);
	case WANT_END:
		return after_end(s, c, found);
	}
	return NULL;
}

static char *unexpected(const struct scan *s)
{
	size_t at = s->problem_at;
	char *found = found_char(s, at);
	char *message = odd_character(s, at, found);
	if (!message && (s->expect == WANT_VALUE || s->expect == WANT_FIRST_VALUE))
		message = odd_value(s, at);
	if (!message && (s->expect == WANT_KEY || s->expect == WANT_FIRST_KEY))
		message = odd_key(s, at);
	if (!message)
		message = expected(s, at, found);
	free(found);
	return message;
}

/* "1 object and 2 lists": the brackets open at the end of the text (at
 * least one) */
static char *open_brackets(const struct scan *s)
{
	int objects = 0, lists = 0;
	for (int k = 0; k < s->depth; k++) {
		if (s->levels[k].bracket == '{')
			objects++;
		else
			lists++;
	}
	char *o = av_printf(P_("%d object", "%d objects", objects), objects);
	char *l = av_printf(P_("%d list", "%d lists", lists), lists);
	char *what = objects && lists ? av_printf(_("%s and %s"), o, l)
				      : av_strdup(objects ? o : l);
	free(o);
	free(l);
	return what;
}

/* "unexpected end of file: 1 object and 2 lists still open (the innermost
 * from line 4)" */
static char *still_open(const struct scan *s)
{
	if (s->depth == 0)
		return av_strdup(_("unexpected end of file: expected a JSON object"));
	char *what = open_brackets(s);
	int line = line_of(s, s->levels[s->depth - 1].opened_at);
	char *message = s->depth == 1
		? av_printf(_("unexpected end of file: %s still open (from line %d)"), what, line)
		: av_printf(_("unexpected end of file: %s still open (the innermost from line %d)"),
			    what, line);
	free(what);
	return message;
}

static char *bad_escape(const struct scan *s)
{
	char shown[12];
	size_t at = s->problem_at + 1;
	av_escape_controls_next(s->text + at, s->len - at, shown);
	return av_printf(_("'\\%s' is not a JSON escape (a backslash itself is written \\\\)"),
			 shown);
}

/* "a line break inside a string: ..." for a raw byte below 32 there */
static char *raw_control(const struct scan *s)
{
	unsigned char c = (unsigned char)s->text[s->problem_at];
	if (c == '\n' || c == '\r')
		return av_strdup(_("a line break inside a string: JSON writes it as \\n"));
	if (c == '\t')
		return av_strdup(_("a tab inside a string: JSON writes it as \\t"));
	return av_printf(_("control character '\\x%02x' inside a string: JSON writes it as "
			   "\\u%04x"), c, c);
}

static char *strict_problem(const struct scan *s)
{
	size_t at = s->problem_at;
	char word[33];
	switch (s->problem) {
	case CONTROL_OUTSIDE:
		return av_printf(_("control character '\\x%02x' between values (JSON allows only "
				   "spaces, tabs and line breaks there)"),
				 (unsigned char)s->text[at]);
	case RAW_CONTROL:
		return raw_control(s);
	case STRING_NOT_UTF8: {
		char *found = found_char(s, at);
		char *message = av_printf(_("invalid UTF-8 byte %s in a string (is the file "
					    "saved as UTF-8?)"), found);
		free(found);
		return message;
	}
	case LEADING_ZERO: {
		bool minus = s->text[at] == '-';
		word_at(s, at + minus, word);
		return av_printf(_("'%s%s': a JSON number cannot start with 0 (write 7, not 07)"),
				 minus ? "-" : "", word);
	}
	case BARE_DOT:
		if (at > 0 && is_digit(s->text[at - 1]))
			return av_strdup(_("a JSON number needs a digit after its '.' (1.0, not 1.)"));
		return av_strdup(_("a JSON number needs a digit before its '.' (0.5, not .5)"));
	default:
		return NULL;
	}
}

static char *describe(const struct scan *s)
{
	switch (s->problem) {
	case CONTROL_OUTSIDE:
	case RAW_CONTROL:
	case STRING_NOT_UTF8:
	case LEADING_ZERO:
	case BARE_DOT:
		return strict_problem(s);
	case END_OF_TEXT:
		return still_open(s);
	case STRING_OVER_LINES:
		return av_strdup(_("string not closed before the end of the line (JSON strings "
				   "cannot hold a raw newline)"));
	case UNCLOSED_STRING:
		return av_strdup(_("string not closed before the end of the file"));
	case BAD_ESCAPE:
		return bad_escape(s);
	case SHORT_U_ESCAPE:
		return av_strdup(_("\\u needs four hexadecimal digits"));
	case LONE_SURROGATE:
		return av_printf(_("\\u%.4s is half of a UTF-16 surrogate pair, and its other "
				   "half is missing"), s->text + s->problem_at + 2);
	case UNEXPECTED:
		return unexpected(s);
	case NO_PROBLEM:
	case GAVE_UP:
		break;
	}
	return NULL;
}

/* Scans text (len bytes) to its first problem, none going past stop (where
 * cJSON stopped), strictly or as cJSON reads. Each entry point below
 * starts here, so that each skips a byte order mark at the very start, as
 * cJSON does. The caller frees s->levels. */
static void scan_whole(struct scan *s, const char *text, size_t len, size_t stop, bool strict)
{
	*s = (struct scan){ .text = text, .len = len, .stop = stop, .strict = strict,
			    .expect = WANT_VALUE };
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		s->i = 3;
	s->levels = av_calloc(CJSON_NESTING_LIMIT, sizeof *s->levels);
	scan_text(s);
}

char *av_json_strict_problem(const char *text, size_t len, size_t *at)
{
	struct scan s;
	scan_whole(&s, text, len, len, true);
	char *message = NULL;
	if (s.problem != NO_PROBLEM && s.problem != GAVE_UP) {
		message = describe(&s);
		*at = s.problem_at;
	}
	free(s.levels);
	return message;
}

char *av_json_diagnose(const char *text, size_t len, size_t *at)
{
	struct scan s;
	scan_whole(&s, text, len, *at, false);
	char *message = NULL;
	if (agrees(&s, *at)) {
		message = describe(&s);
		*at = s.problem_at;
	}
	free(s.levels);
	return message ? message : av_strdup(_("JSON syntax error"));
}

/* What a message cut off before its JSON ended had open: "1 object still
 * open", "a string inside 2 objects still open"; NULL when it was not cut
 * off (nothing open, or a mistake before its end). A message is no file:
 * no "end of file", no lines. */
static char *cut_off_at(const struct scan *s)
{
	char *brackets, *what, *message;

	if (s->problem == UNCLOSED_STRING && s->depth == 0)
		return av_strdup(_("a string still open"));
	if ((s->problem != END_OF_TEXT && s->problem != UNCLOSED_STRING) || s->depth == 0)
		return NULL;
	brackets = open_brackets(s);
	what = s->problem == UNCLOSED_STRING ? av_printf(_("a string inside %s"), brackets)
					     : av_strdup(brackets);
	message = av_printf(_("%s still open"), what);
	free(brackets);
	free(what);
	return message;
}

char *av_json_diagnose_message(const char *text, size_t len, size_t *at, bool *cut_off)
{
	struct scan s;
	scan_whole(&s, text, len, *at, false);
	char *message = NULL;
	*cut_off = false;
	if (agrees(&s, *at)) {
		message = cut_off_at(&s);
		*cut_off = message != NULL;
		if (message == NULL && s.problem == END_OF_TEXT)
			message = av_strdup(_("no JSON object in it"));
		if (message == NULL)
			message = describe(&s);
		*at = s.problem_at;
	}
	free(s.levels);
	return message ? message : av_strdup(_("JSON syntax error"));
}
