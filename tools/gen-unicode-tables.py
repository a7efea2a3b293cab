#!/usr/bin/env python3
"""Writes src/engine/unicode_tables.c: the character tables of the tokenizer
and of column widths (utf8.h), from Python's str.lower() and unicodedata,
so that they are exact for one Unicode version rather than hand-picked
blocks.

    python3 tools/gen-unicode-tables.py > src/engine/unicode_tables.c

Lower case, from Python's own str.lower(), so the tables agree with it by
construction rather than by reading the Unicode files:
  - the simple lower-case mappings, as runs of code points (every one, or
    every other one) moved by the same delta. U+0130 (capital I with dot
    above) is the one code point whose lower case is two (i and U+0307);
    it becomes plain i, as attnview has always done.
  - for the final sigma rule (the one rule of str.lower() that looks at
    context: capital sigma becomes the final form when a cased letter comes
    before it and none after it, skipping case-ignorable characters), which
    code points are cased and which are case-ignorable, found by asking
    str.lower() about "cΣ" and "ΑcΣ" for each code point c.

Punctuation and symbols (General Category P* and S*) above ASCII: they end
a word and are tokens of their own.

Zero width, as glibc's wcwidth() and terminals count it: combining marks
(Mn, Me) and format characters (Cf), except the soft hyphen and the
prepended concatenation marks (Arabic number signs and the like, which are
drawn), and the conjoining Hangul vowels and final consonants.

What UAX #29 (grapheme clusters) needs and unicodedata lacks, from Perl's
\p{...}, whose Unicode version must be the same as Python's, so that the
tokenizer never ends a token inside a character as a reader sees it:
Extended_Pictographic (an emoji ZWJ sequence, a pictograph, U+200D, a
pictograph, is one grapheme), Grapheme_Cluster_Break Extend and
SpacingMark (they belong to the character before them) and Prepend (to
the one after).

The output is committed (it depends on the Unicode version of the Python that
ran this, which the file names); regenerate it on purpose, never in the build.
"""
import subprocess
import sys
import unicodedata

SIGMA, FINAL_SIGMA, ALPHA = "\u03a3", "\u03c2", "\u0391"


def lower_of(cp):
    low = chr(cp).lower()
    if len(low) == 1:
        return ord(low)
    assert cp == 0x130, (hex(cp), low)   # the only expanding lower case
    return ord("i")


def mapping_runs():
    """(first, last, stride, delta): every stride-th code point from first
    to last maps to itself + delta."""
    pairs = [(cp, lower_of(cp) - cp) for cp in range(0x110000)
             if not 0xD800 <= cp <= 0xDFFF and lower_of(cp) != cp]
    runs, i = [], 0
    while i < len(pairs):
        first, delta = pairs[i]
        stride, j = 1, i + 1
        if j < len(pairs) and pairs[j][1] == delta and pairs[j][0] - first in (1, 2):
            stride = pairs[j][0] - first
            while j < len(pairs) and pairs[j][1] == delta and \
                    pairs[j][0] - pairs[j - 1][0] == stride:
                j += 1
        runs.append((first, pairs[j - 1][0], stride, delta))
        i = j
    return runs


def is_cased(cp):
    """A cased letter for the final sigma rule: str.lower() of "cΣ" ends
    in ς (sigma itself counts)."""
    c = chr(cp)
    return c == SIGMA or (c + SIGMA).lower()[-1] == FINAL_SIGMA


def is_case_ignorable(cp):
    """Skipped when looking for a cased letter: not cased, yet "ΑcΣ"
    still ends in ς."""
    return not is_cased(cp) and (ALPHA + chr(cp) + SIGMA).lower()[-1] == FINAL_SIGMA


# PropList.txt's Prepended_Concatenation_Mark (Unicode 14): format
# characters that are drawn, one column wide (glibc's wcwidth agrees).
PREPENDED = set(range(0x0600, 0x0606)) | {0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2,
                                          0x110BD, 0x110CD}


def is_punct(cp):
    return cp >= 0x80 and unicodedata.category(chr(cp))[0] in "PS"


def is_zero_width(cp):
    if 0x1160 <= cp <= 0x11FF or 0xD7B0 <= cp <= 0xD7FF:
        return True   # conjoining jungseong and jongseong
    if cp == 0x00AD or cp in PREPENDED:
        return False
    return unicodedata.category(chr(cp)) in ("Mn", "Me", "Cf")


PERL_PROPERTIES = ("Extended_Pictographic", "GCB=Extend", "GCB=SpacingMark", "GCB=Prepend")


def perl_properties():
    """{property: set of code points} for PERL_PROPERTIES, from Perl (whose
    Unicode version must be Python's)."""
    tests = " ".join('print "%d $c\\n" if chr($c) =~ /\\p{%s}/;' % (i, name)
                     for i, name in enumerate(PERL_PROPERTIES))
    script = ('use Unicode::UCD; print Unicode::UCD::UnicodeVersion(), "\\n";'
              'for my $c (0 .. 0x10FFFF) { next if $c >= 0xD800 && $c <= 0xDFFF; %s }'
              % tests)
    out = subprocess.run(["perl", "-e", script], check=True, capture_output=True,
                         text=True).stdout.splitlines()
    assert out[0] == unicodedata.unidata_version, ("Perl's Unicode", out[0])
    sets = {name: set() for name in PERL_PROPERTIES}
    for line in out[1:]:
        i, c = line.split()
        sets[PERL_PROPERTIES[int(i)]].add(int(c))
    return sets


def ranges_of(test):
    out, start = [], None
    for cp in range(0x110000):
        inside = not 0xD800 <= cp <= 0xDFFF and test(cp)
        if inside and start is None:
            start = cp
        elif not inside and start is not None:
            out.append((start, cp - 1))
            start = None
    if start is not None:
        out.append((start, 0x10FFFF))
    return out


def write_ranges(w, name, ranges):
    w("const struct av_cp_range %s[] = {\n" % name)
    for lo, hi in ranges:
        w("\t{ 0x%04X, 0x%04X },\n" % (lo, hi))
    w("};\n\n")
    w("const int %s_count = %d;\n\n" % (name.replace("_ranges", ""), len(ranges)))


def main():
    runs = mapping_runs()
    w = sys.stdout.write
    w("/* unicode_tables.c: GENERATED by tools/gen-unicode-tables.py from Python's\n")
    w(" * str.lower() and unicodedata (and Perl's grapheme properties), Unicode\n")
    w(" * %s; do not edit. See\n" % unicodedata.unidata_version)
    w(" * unicode_tables.h. */\n")
    w('#include "unicode_tables.h"\n\n')
    w('const char av_unicode_tables_version[] = "%s";\n\n' % unicodedata.unidata_version)
    write_ranges(w, "av_punct_ranges", ranges_of(is_punct))
    write_ranges(w, "av_zero_width_ranges", ranges_of(is_zero_width))
    w("const struct av_lower_run av_lower_runs[] = {\n")
    for first, last, stride, delta in runs:
        w("\t{ 0x%04X, 0x%04X, %d, %d },\n" % (first, last, stride, delta))
    w("};\n\n")
    w("const int av_lower_run_count = %d;\n\n" % len(runs))
    write_ranges(w, "av_cased_ranges", ranges_of(is_cased))
    write_ranges(w, "av_case_ignorable_ranges", ranges_of(is_case_ignorable))
    perl = perl_properties()
    pict = perl["Extended_Pictographic"]
    extend, spacing = perl["GCB=Extend"], perl["GCB=SpacingMark"]
    prepend = perl["GCB=Prepend"]
    write_ranges(w, "av_pictographic_ranges", ranges_of(lambda cp: cp in pict))
    write_ranges(w, "av_grapheme_extend_ranges", ranges_of(lambda cp: cp in extend))
    write_ranges(w, "av_spacing_mark_ranges", ranges_of(lambda cp: cp in spacing))
    write_ranges(w, "av_prepend_ranges", ranges_of(lambda cp: cp in prepend))


if __name__ == "__main__":
    main()
