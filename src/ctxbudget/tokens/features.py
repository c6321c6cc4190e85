"""The text features a calibrated profile weighs: counts of character classes and runs.

Speed is the point of a calibrated counter, so no Python code looks at characters one
by one. The text is encoded to UTF-8 once and its continuation bytes dropped, leaving
one byte per character whose value still names the script (UTF-8 lead bytes follow
the Unicode blocks). Then:

* what a character and the one or two before it make (a space before a digit, three
  equal marks in a row, a line that starts with punctuation) is ``neighbours``: one
  pass in C where the package's extension is built, else big-integer masks, where a
  class is the text's flags masked and its neighbours are shifts;
* classes that are only counted (digits, quotes, upper-case letters, the blocks of
  lead bytes...) are counted in one pass each, all classes of a table at once
  (``neighbours.class_counts``); a translation of the non-ASCII characters alone gives
  their scripts;
* ASCII words are ``words``: one pass in C that looks each up in a hash table of the
  common words, where the extension is built, else ``split()`` and set lookups.

Han ideographs are classified one by one in one C pass (``range_class_counts``: a
16-bit mask of classes per code point of U+4000-U+9FFF, ``_han_classes``); costly
characters and the rarer classes by compiled regular expressions over the non-ASCII
part of the text, each written so that it matches seldom (a match costs as much as
scanning dozens of characters): a class of rare characters is ``[c][c]*``, which the
search skips to in C. Every feature is
a count that never drops when text is appended (except the word-table ones when the
new text continues the last word, and a punctuation run when it makes a dot or an
underscore after a letter a word joiner), and features add up over pieces of a text cut
after a run of newlines, which is how long texts are processed (see ``_PIECE``).

Tables ship with the package (``data/feature_tables.json``, derived from real
vocabularies by ``benchmarks/tokens_tables.py``): common English words, which BPE
vocabularies spend one token on; the other words some vocabulary holds whole, with what
each spends on them (``ctxbudget.tokens.held_words``, which writes a common word in
their place before the other features look at the text); Han ideographs grouped by how rare they are
(``han_frequent`` / ``han_common`` / ``han_rare`` cost 1 / 2 / 3 tokens in cl100k;
``han_beyond_everyday`` are not whole tokens in DeepSeek's and Qwen's vocabularies,
unlike the 5,000 everyday ones); the characters some vocabulary, and each one, spends 2 or
3 tokens on alone; the symbols that merge when repeated; and the character pairs the
vocabularies hold inside tokens (``unlearned_pairs``, ``learned_letter_joins``).
"""

from __future__ import annotations

import base64
import functools
import json
import operator
import re
import unicodedata
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from itertools import compress
from types import MappingProxyType
from typing import Any, Final

from ctxbudget.tokens.boundaries import (
    TRIPLE_ALPHABET,
    ForcedTables,
    PairFloors,
    forced_boundary_tables,
    pair_floor_counter,
)
from ctxbudget.tokens.held_words import HELD_COUNT_NAMES, HeldWords
from ctxbudget.tokens.learned_pairs import (
    HAN_IDEOGRAPHS,
    HANGUL_SYLLABLES,
    KANA_AND_FORMS,
    SCRIPTS_BEYOND_TWO_BYTES,
    TWO_BYTE,
    CodeRanges,
    UnlearnedPairCounts,
    learned_pair_table,
    unlearned_pairs_counter,
)
from ctxbudget.tokens.neighbours import (
    ASCII_PUNCTUATION,
    CONTROLS,
    NEIGHBOUR_NAMES,
    PIECE,
    UNICODE_SPACES,
    byte_span,
    class_counts,
    neighbour_counts,
    range_class_counts,
    unicode_space_changes,
    unmerged_pair_table,
)
from ctxbudget.tokens.repeats import UNITS, RepeatedUnit, repeated_units, shortest_runs
from ctxbudget.tokens.words import (
    CAP,
    RARE_LETTERS,
    SNAKE_VOCABULARIES,
    WordCounts,
    word_counter,
)

__all__ = [
    "FEATURE_NAMES",
    "FLOOR_VOCABULARIES",
    "composed_bytes",
    "one_character_run_costs",
    "pair_floors",
    "text_features",
    "unfamiliar_repeats",
]

FEATURE_NAMES: Final = (
    "common_words",
    "other_words",
    "other_word_letters",
    "other_word_letters_capped",
    "upper_case_tokens",
    "one_letter_words",
    "title_case_letters",
    "uncovered_word_letters",
    "uppercase",
    "rare_letters",
    "consonant_triples",
    "upper_consonant_triples",
    "case_switches",
    "digits",
    "digit_runs",
    "digit_groups",
    "space_before_digit",
    "punctuation",
    "punctuation_runs",
    "word_joiners",
    "preprocessor_directives",
    "contractions",
    "punctuation_repeats",
    "punctuation_changes",
    "space_before_punctuation",
    "quotes",
    "punctuation_before_newline",
    "newlines",
    "newline_runs",
    "tabs",
    "tab_runs",
    "tabs_before_non_letters",
    "controls",
    "space_runs",
    "spaces_in_runs",
    "spaces_before_line_end",
    "carriage_returns",
    "crlf_line_ends",
    "long_run_letters",
    "space_before_non_ascii",
    "han_frequent",
    "han_common",
    "han_rare",
    "han_beyond_everyday",
    "han_extra_tokens_o200k",
    "han_extra_tokens_deepseek_v4",
    "han_extra_tokens_qwen3",
    "han_runs",
    "kana",
    "hangul",
    "cjk_punctuation",
    "latin_extended",
    "greek_cyrillic",
    "greek_cyrillic_uppercase",
    "cyrillic_beyond_russian",
    "other_two_byte",
    "two_byte_runs",
    "other_three_byte",
    "other_three_byte_runs",
    "astral",
    "astral_beyond_emoji",
    "costs_two",
    "costs_three",
    "punctuation_before_non_ascii",
    "emoji_plane_costs_three",
    "letter_after_non_ascii",
    "unicode_spaces",
    "unicode_space_changes",
    "whitespace_changes",
    "uncommon_camel_parts",
    "other_three_byte_unmergeable",
    "unquoted_punctuation_changes",
    "mixed_case_long_word_letters",
    "common_camel_long_word_letters",
    "quote_repeats",
    "unindented_lines",
    "bracket_repeats",
    "far_merging_repeats",
    "escape_sequences",
    "punctuation_line_starts",
    "short_merging_repeats",
    "escapes_after_punctuation",
    "newlines_after_words",
    "quote_alternations",
    "table_rule_pieces",
    "hyphen_joiners",
    *(f"snake_parts_split_{vocabulary}" for vocabulary in SNAKE_VOCABULARIES),
    *(f"bare_words_split_{vocabulary}" for vocabulary in SNAKE_VOCABULARIES),
    "unlearned_pairs",
    "script_letters",
    "thai_letters",
    "devanagari_letters",
    "extra_tokens_cl100k",
    "extra_tokens_o200k",
    "extra_tokens_deepseek_v4",
    "extra_tokens_qwen3",
    "learned_letter_joins",
    "greek_letters",
    "armenian_letters",
    "hebrew_letters",
    "arabic_letters",
    "telugu_kannada_malayalam_letters",
    "sinhala_letters",
    "myanmar_letters",
    "georgian_letters",
    "ethiopic_letters",
    "khmer_letters",
    "vietnamese_letters",
    "lao_letters",
    "gujarati_letters",
    "bengali_letters",
    "gurmukhi_letters",
    "tamil_letters",
    "non_russian_cyrillic_word_letters",
    "central_asian_cyrillic_line_letters",
    "belarusian_line_letters",
    "format_controls",
    "kyrgyz_mongolian_text_letters",
    "unlearned_han_pairs_cl100k",
    "unlearned_han_pairs_o200k",
    "unlearned_han_pairs_deepseek_v4",
    "unlearned_han_pairs_qwen3",
    "lone_kana_cl100k",
    "lone_kana_o200k",
    "lone_kana_deepseek_v4",
    "lone_kana_qwen3",
    "unlearned_hangul_pairs_cl100k",
    "unlearned_hangul_pairs_o200k",
    "unlearned_hangul_pairs_deepseek_v4",
    "unlearned_hangul_pairs_qwen3",
    "urdu_text_letters",
    *HELD_COUNT_NAMES,
)
"""Feature order, shared by ``text_features`` and every profile.

``common_words`` / ``other_words``: runs of ASCII letters in / not in the common-word
table (``upper_case_tokens``, words of capitals that cl100k, o200k and Qwen hold whole,
``_MAJOR``, ``VERSION``, are neither: they cost those vocabularies a token where an
uncommon word of their length costs two, and DeepSeek V4 more; ``one_letter_words``,
a letter with no letter and no character beyond ASCII on either side, costs about a
token, or nothing beyond the punctuation it joins, where an uncommon word's price of
its first letter is half a token);
``other_word_letters_capped`` counts at most 4 letters a word, so that the fit can
make long identifiers cost less than their length, and ``title_case_letters`` the
letters beyond those 4 of the other words of at most ``LONG_WORD`` letters in title
case (names, German nouns: ``Tlacoatzintepec`` costs cl100k six tokens, where a
lower-case identifier of its length is mostly words a vocabulary learned).
``uncovered_word_letters``: of the lower-case and title-case other words of more than 4
and at most ``LONG_WORD`` letters, each one's length less what the longest common word it
starts with and the longest the rest ends with cover (``words.COVER`` letters or more,
in lower case), or less 4: the vocabularies learned the pieces of English and of code
far better than those of other languages, and a word made of common words costs what its
words cost (``timestamps``, ``readonly``: none uncovered), where ``tulevaisuudesta`` is 6
of cl100k's tokens and was priced by its first four letters (a Finnish sentence of ours
at 81-84 % of every count; words of 5-16 letters outside the tables, on their own, cost
cl100k 2.5 letters a token in Finnish prose and 3.4 in agent traffic).
``rare_letters`` (j k q v w x y z) and ``consonant_triples`` (both in the other words of
at most ``LONG_WORD`` letters: a common word is one token whatever its letters, a long
one is priced by its length; triples of three capitals are ``upper_consonant_triples``,
as the vocabularies join an acronym's capitals in far fewer pieces: ``NSSCKFW`` is
``NSS``, ``CK``, ``FW`` to o200k, and the price of lower-case triples had put C headers
of such names 13-15 % over)
flag letter runs that are not English words (identifiers, other languages, encoded
text), which split into more pieces; ``case_switches`` (lower-case then upper-case) marks
camelCase and base64. ``word_joiners``: a dot or an underscore between two ASCII
letters (``file.py``, ``test_missing_key``), which vocabularies join to the word after
it (``.py``, ``_missing``: no token of its own), left out of ``punctuation_runs``; a
hyphen or slash there is not (counted apart, it made English prose and paths worse).
``preprocessor_directives``: a ``#`` that starts a line and a directive of C's
preprocessor (``#include``, ``#define``, ``#endif``...), which cl100k, o200k and Qwen
spend one token on with its word (the ``#`` is free, where ``#todo`` pays for it), left
out of ``punctuation_runs`` (DeepSeek V4 joins fewer of them: the fit prices what is
left).
``contractions``: an apostrophe between a letter and ``s t ll re ve m d`` ending the word
("Let's", "don't", "I'll"), which o200k spends no token on beyond the word's and
cl100k one ("'s"); the apostrophe and the ending are left out of the punctuation, quote
and word features.
``punctuation_repeats`` / ``punctuation_changes``: punctuation after the same / another
punctuation character ("-----" merges into one token, "+-+" does not).
``digit_groups``: the digits of each run taken three at a time from its start (a run of
n digits makes ceil(n / 3)), as cl100k, o200k and DeepSeek V4 split numbers: "417" is
one token and "2026" two, which a price per digit and per run cannot both say (Qwen
spends a token a digit, which ``digits`` says).
``space_before_digit``: a space is its own token before a number, while it joins a
following word; ``space_before_punctuation``
joins or not, depending on the tokenizer. ``space_runs``: runs of two or more spaces,
``spaces_in_runs`` the spaces after the first of each (a vocabulary merges at most a few
dozen spaces into one token, so 100,000 spaces cost hundreds); ``tab_runs``: runs of
two or more tabs, which split as space runs do (``"\\t\\tfor"`` is ``"\\t"``, ``"\\tfor"``:
a tab-indented line pays a token for its indentation, a single tab joins the word);
``tabs_before_non_letters``: a tab before anything but an ASCII letter or white space
(a digit, punctuation, a character beyond ASCII), which no vocabulary joins to what
follows: a token of its own (tab-separated numbers, ``"\\t}"`` and ``"\\t//"`` in
tab-indented code, priced at a tenth of that by the tabs); and a tab before one space
and what is no white space, which the space joins (``"\\t the"`` is ``"\\t"``,
``" the"``: priced as a change of white space, which merges in a run of them, the
guard had counted ``"\\t the" * 1000`` at 82 % of its count);
``newline_runs``: blank
lines merge; ``spaces_before_line_end``: a space before a newline or a CR LF, a token
of its own; ``crlf_line_ends``: CR LF pairs, which cl100k and o200k merge into one
token as they would the LF alone and DeepSeek V4 does not (a token more); not counted
as ``whitespace_changes``; ``carriage_returns``: the other CR characters, followed by
anything but a LF, a token each in every vocabulary (a CR that ends the text is
neither yet, so that appending text never lowers a count). ``long_run_letters``: letters
beyond the ``LONG_RUN``-th of a run of one case inside a word longer than ``LONG_WORD``
letters ("abab..." or random letters, which no vocabulary merges far; camelCase
identifiers are many short runs and add nothing). ``controls``: control characters such as terminal
escapes. Beyond ASCII: ``latin_extended`` U+0080-U+037F but the no-break space
(priced as white space, below),
``greek_cyrillic`` U+0380-U+053F, ``other_two_byte`` U+0540-U+07FF (Hebrew, Arabic...),
``two_byte_runs`` their words; ``other_three_byte``: the rest of the Basic Multilingual
Plane outside CJK (Indic scripts, symbols, box drawing, typographic punctuation), and
its runs (rules like "────" merge into few tokens); ``astral``: code points beyond the
Basic Multilingual Plane (emoji, rare ideographs), and those outside the emoji plane
U+1Fxxx (``astral_beyond_emoji``: ancient scripts, rare ideographs, private use, each up
to 4 tokens). ``costs_two`` / ``costs_three``: non-Han characters that some vocabulary
spends 2 / 3 or more tokens on when alone (``data/feature_tables.json``). Script classes
say how a character usually merges with its neighbours; these say what it costs when
nothing merges (random text in any script, combining marks piled up, private-use or
unassigned code points), which is what keeps a conservative count from being fooled.
``punctuation_before_non_ascii``: ASCII punctuation (or a control character) followed by
a non-ASCII character, which it cannot merge with as it merges with an ASCII word
(".bar", "_id" are tokens; "_å", ")¬" are two). ``emoji_plane_costs_three``: characters
of U+1F000-U+1FFFF that some vocabulary spends 3 or more tokens on alone
(``data/feature_tables.json``): unassigned ones and most symbols, where ``astral`` is
priced for the emoji that merge. ``letter_after_non_ascii``: an ASCII letter run that
starts right after a non-ASCII character ("¤L", "èN"), a piece the ASCII word table does
not price; not after a no-break space, where a word starts as after a space.
``unicode_spaces``: white space beyond ASCII (no-break, ideographic,
typographic and zero-width no-break spaces; of a run of no-break spaces, the first), a
token each where it does not merge with the next word.
``unicode_space_changes``: two white-space characters in a row that differ, one of them
beyond ASCII (a no-break space then a newline, a space then an ideographic space;
``neighbours.reference_unicode_space_changes``): white space of one kind merges into a
token, and where the kind changes a token ends (``"\xa0\xa0\n\n\n \xa0\xa0\n\n\n "`` is
six tokens of every vocabulary, which the newlines, priced as runs that join the
indentation after them, had put at three).
``whitespace_changes``: an ASCII white-space character (space, tab, newline, CR, VT, FF)
right after a *different* one other than a newline (tab then space, space then CR),
where a run of white space breaks into another token. ``uncommon_camel_parts``: the
parts of mixed-case words outside the table ("validFlags" has none: "valid" and "flags"
are common; "RzWZRz" three), so that ``case_switches`` can price the switches of
identifiers made of words (a token each) apart from those of encoded text and random
letters (a few tokens each).
``other_three_byte_unmergeable``: the ``other_three_byte`` characters but the few every
vocabulary merges when repeated (dashes, "─", "═", "█", ``repeat_mergeable`` in
``data/feature_tables.json``): a long rule costs a few tokens,
a run of zero-width spaces a token each. ``unquoted_punctuation_changes``: the
``punctuation_changes`` with no quote on either side: JSON's ``{"``, ``":"``, ``"}``
are a token each, so a change next to a quote costs less than ``)+`` or ``-->``.
``mixed_case_long_word_letters``: the letters beyond the ``LONG_WORD``-th of mixed-case
words longer than that with a camelCase part that is no common word (random letters,
encoded data), which ``long_run_letters`` (runs of one case) does not see and no
vocabulary merges far; ``common_camel_long_word_letters`` the same of the words made of
common parts only (``xmlOutputBufferCreateFilename``: a token a part). ``quote_repeats``: a quote
after a quote, which some vocabularies do not merge as they merge "----".
``unindented_lines``: lines (the first one too) that start with neither white space nor
their end: their newline is a token of its own, where indentation would merge with it.
``bracket_repeats``: a bracket, brace, backquote or ampersand right after one of them
("[[[[", "}}}}"), which vocabularies merge two by two at best ("----" merges by 16).
``far_merging_repeats``: a character of ``repeat_far`` (``data/feature_tables.json``:
"─", "—", "…", which every vocabulary merges eight or more to a token) right after the
same one; these repeats are left out of ``other_three_byte``, whose worst case ("═",
two to a token in cl100k) would price a rule of "─" at four times its cost.
``escape_sequences``: a backslash and the character it escapes in JSON and C strings
(``\\n``, ``\\t``, ``\\r``, ``\\"``, ``\\\\``, ``\\/``), one token in every vocabulary, where a
backslash and a one-letter word would cost two (tool-call arguments are JSON).
``punctuation_line_starts``: lines (the first one too) that start with punctuation
(``#`` comments, ``[section]`` headers, ``<tag>``, ``- item``), which merges neither with
the newline before it nor, in comments, with the word after it.
``short_merging_repeats``: one of ``! $ ( ) + , : ; < > ? @ \\ ^ |`` after two of
itself: some vocabulary merges no more than two to eight of them into a token
(``"((((" `` is two tokens in DeepSeek V4's, ``"!!!!!!!!"`` one in cl100k's), where
``-``, ``=``, ``_``, ``*``, ``#``, ``.`` and ``/`` merge by 58 or more
(``benchmarks/tokens_tables.py`` measures both); brackets and quotes have their own.
``unlearned_pairs``: two adjacent characters of ``two_byte_runs``, or of the scripts of
``other_three_byte_runs`` (U+0800-U+1FFF), that no vocabulary holds inside a token
(``mergeable_pairs`` in ``data/feature_tables.json``; looked up in the one C pass of
``ctxbudget.tokens.learned_pairs``): a token boundary in every vocabulary. Prose in
Hindi, Thai or Georgian is mostly pairs the vocabularies learned and merges several
characters to a token; random letters of the same scripts are
mostly pairs none learned and cost about a token a character, which the script classes
alone cannot tell apart. ``script_letters``: the three-byte characters of U+0800-U+1FFF
(Indic, Thai, Tibetan, Georgian, Khmer, Myanmar, Ethiopic, Vietnamese letters), left out
of ``other_three_byte`` and ``other_three_byte_unmergeable``, which then count symbols
and punctuation only: the worst case of a symbol (``═``, zero-width spaces) is not the
price of a letter in a word. ``thai_letters``: the Thai ones among them
(U+0E00-U+0E7F), written without spaces between words and priced apart (cl100k spends
0.9 tokens a character on Thai prose, 1.3-1.7 on Tamil or Georgian);
``devanagari_letters``: the Devanagari ones (U+0900-U+097F: Hindi, Marathi, Nepali),
which cl100k merges better than the other Indic scripts (1.0 a character against
1.3-1.7). ``extra_tokens_<vocabulary>``: the tokens beyond one that the named
vocabulary spends on each non-Han character of the Basic Multilingual Plane beyond
ASCII when it stands alone (``own_costs`` in ``data/feature_tables.json``): its own
costly characters, where ``costs_two`` and ``costs_three`` are those of any vocabulary
(Armenian letters cost cl100k two tokens alone, o200k one).
``han_extra_tokens_<vocabulary>``: the same for the Han ideographs (U+4000-U+9FFF) of
o200k, DeepSeek V4 and Qwen, which keep far more of them whole than cl100k, whose costs
are the Han classes (``own_han_costs``: one token for 2,515-5,425 of the 20,992 of the
main block against cl100k's 549; an ideograph outside the main block is never whole),
so that a profile can price a rare ideograph at what a vocabulary spends on it (o200k
spends two tokens on each of "镰镆锏锧", which cl100k's classes call common).
``learned_letter_joins``:
an ASCII letter after a character of U+0080-U+1FFF where some vocabulary holds the two
inside a token (``letter_joins`` in ``data/feature_tables.json``: "ệt" of "Việt", "ét"
of "était"), left out of ``letter_after_non_ascii``, which then counts the joins no
vocabulary learned (``"¤L"``, random letters), a token boundary in every one.
``greek_letters`` (U+0380-U+03FF), ``armenian_letters`` (U+0531-U+058F),
``hebrew_letters`` (U+05C0-U+05FF) and ``arabic_letters`` (U+0600-U+06FF): letters of
scripts that share a class above (``greek_cyrillic``, ``other_two_byte``) with scripts
the same vocabulary merges differently, counted once more, so that a profile can price
them apart from their class (translation catalogs: cl100k spends 0.83 tokens a character
on Greek, 0.41 on Russian; o200k counted Arabic catalogs 9 % under at the shared price).
``telugu_kannada_malayalam_letters`` to ``lao_letters``: the letters of the
three-byte scripts of ``_SCRIPT_BLOCKS`` (a few blocks of 128 code points each), left
out of ``script_letters`` as the Thai and Devanagari ones are, each at its own price
(Lao once shared Thai's, which a fit that weighs each language alike then pulled 6
points under on Thai catalogs)
(DeepSeek spends 0.79-0.83 tokens a character on Telugu, Kannada and Malayalam
catalogs, 0.60-0.63 on Hindi and Tamil ones). Gujarati, Bengali, Gurmukhi and Tamil
(``gujarati_letters`` to ``tamil_letters``) have prices of their own too, though the two
halves of their catalogs disagree by up to 25 points on what o200k spends on them: at
one shared price Qwen counted Gujarati 28 % under and DeepSeek Tamil 14 % under; at
their own, o200k's checked halves of three of them come out 9-16 % over, an overcount
where the shared price undercounted. Oriya, Tibetan and the scripts of no catalog here keep
``script_letters``' price.
``non_russian_cyrillic_word_letters``: the letters of Cyrillic words that hold a letter
Russian does not use (``cyrillic_beyond_russian``: і, ў, ј, ә, ө, ү...): such words are
of Ukrainian, Belarusian, Serbian, Kazakh, Kyrgyz or Mongolian, which vocabularies
trained mostly on Russian merge less, letters of Russian's alphabet included.
``central_asian_cyrillic_line_letters``: the Cyrillic letters of a line from its first
ң, ү or ө on (Kazakh, Kyrgyz, Tatar, Mongolian): most Kyrgyz and Mongolian words hold
no letter Russian lacks, but their lines do, and vocabularies merge those words far
less than Russian ones (Mongolian and Kyrgyz catalogs were counted 24-26 % under by
cl100k's profile, now 18 %; Kazakh ones, which the vocabularies merge better, are
counted 5 % over by it, 11 % by ``generic``). ``belarusian_line_letters``: the same from
a line's first ў on, for Belarusian (catalogs 10-18 % under before, 6-10 % after),
which shares і with Ukrainian but is merged far less.
``kyrgyz_mongolian_text_letters``: the Cyrillic letters of a text that writes ү or ө
and none of the letters of Kazakh, Tatar and Bashkir (ә ғ қ ұ һ җ ҙ ҡ ҫ): Kyrgyz or
Mongolian, whose words vocabularies merge no further on a line without ү or ө
(Kyrgyz costs cl100k 0.71 tokens a Cyrillic letter, Mongolian 0.86, Russian 0.45),
where Kazakh's they merge better; such a text counts no
``central_asian_cyrillic_line_letters``, which then price Kazakh, Tatar and Bashkir.
``unlearned_han_pairs_<vocabulary>``: adjacent ideographs of U+4E00-U+9FFF that no
token of that vocabulary holds (``ctxbudget.tokens.learned_pairs``; its ``han_pairs`` in
``data/feature_tables.json``: 212 pairs for cl100k, 3,433 for o200k, 25,532 for
DeepSeek V4, 40,168 for Qwen), each a token boundary of it: running Chinese prose is
mostly words a vocabulary learned, classical verse and names mostly not, which a price
per character cannot tell apart (Tang and Song verse was counted 15-18 % under by
DeepSeek's and Qwen's profiles).
``lone_kana_<vocabulary>``: kana, CJK symbols and punctuation and fullwidth, halfwidth,
vertical and small forms (``KANA_AND_FORMS``) between two adjacent pairs of them that no
token of that vocabulary holds (``kana_pairs`` in ``data/feature_tables.json``), which
it joins to neither neighbour: a token of their own. 24-53 % of the kana pairs of the
dev corpus's Japanese are pairs o200k, DeepSeek V4 or Qwen did not learn, 95-100 % of
those of random katakana words, which the profiles priced at the kana of prose (Qwen's
at 64 % of its count); nearly every character of random kana is lone, few of prose (a
pair unlearned after another is about as rare as the square of their share), so that a
floor on them prices random kana without moving the price of prose.
``urdu_text_letters``: the characters of U+0600-U+06FF of a text that writes one of the
letters Urdu adds to the Arabic alphabet (ٹ ڈ ڑ ں ھ ہ ے ۓ), which DeepSeek V4 and Qwen
merge far less than Arabic and Farsi: at their shared price, Urdu prose drawn at its
words' frequencies came out 21 % under DeepSeek V4's count and 14 % under Qwen's.
``unlearned_hangul_pairs_<vocabulary>``: adjacent Hangul syllables no token of that
vocabulary holds (``hangul_pairs`` in ``data/feature_tables.json``: 64 pairs for cl100k,
1,051 for o200k, 385 for DeepSeek V4, 3,906 for Qwen). cl100k's pairs are the words of
software ("사용", "데이터", "니다"), which fill the translated menus and man pages the
profiles were fitted on and few sentences people write to each other: priced by the
syllable alone, everyday Korean came out at 76 % of cl100k's count.
``format_controls``: the invisible format controls of General Punctuation (the
zero-width space, the direction marks, embeddings and isolates, the word joiner and
invisible operators: U+200B, U+200E, U+200F, U+202A-U+202E, U+2060-U+206F; not the
zero-width joiner and non-joiner, which Persian and the Indic scripts write inside words),
which no vocabulary merges with anything: each costs a token or two whatever surrounds it, where the
symbols they share ``other_three_byte`` with (quotes, dashes, arrows) mostly join a
neighbour. Hidden text is made of them.
``escapes_after_punctuation``: a backslash right after punctuation (``[\\n``, ``.\\"``,
``,\\n`` in JSON that holds code), which cl100k mostly joins to the punctuation
(``[\\`` is one token) and DeepSeek's vocabulary mostly does not.
``newlines_after_words``: line feeds after a letter or a digit (ASCII, or of a lead byte
of letters: Latin, Greek, Cyrillic, Hebrew, Arabic, Indic, Thai, Han, Hangul, not
Armenian), which
cl100k, o200k and DeepSeek spend a token on, where one after punctuation or a space
joins it (``")\n"``, ``" \n"``); Qwen spends a token on every line feed. Not where a
script's full stop shares the lead byte of the line's last letters ("。" and kana, "։"
of Armenian, "።" of Ethiopic): counted there, the line feeds of Amharic catalogs and
Chinese verse put their counts 5-15 points over. ``quote_alternations``: two punctuation
marks, one a quote, alternating, from the fourth on (``"'/'/'/"``, ``'",",",'``): each
pair is a token ("/'"), so the pair floors do not see them, and the quote and punctuation
prices of code, where quotes join a neighbour, put cl100k's profile at 13 of 41 tokens for
``"'/" * 40``.
``table_rule_pieces``: in each run of ``|``, ``-`` and ``:`` that holds a pipe and a dash
(the rule of a Markdown table, ``|---|:---:|``), its runs of one character, which
cl100k, o200k and Qwen keep apart (``|``, ``---``, ``|``, ``:``: two tokens a column or
more, where the price of one run of punctuation had put a rule of four columns at 5-6 of
their 9 tokens); DeepSeek V4 merges a pipe and three dashes (``|---|---`` is one token)
and splits the other rules as they do. No weight of the tokenizer-specific profiles is
floored on it: a floor prices what the other punctuation features already pay, and put
``|---|---|`` at 7-9 tokens.
``hyphen_joiners``: a hyphen between an ASCII letter and a lower-case one (kebab-case
names in CSS, HTML attributes, command-line flags and package names:
``margin-block-start``, ``--dry-run``; English compounds), which the vocabularies join
to the word after it (``-block``, ``-start``) as they join an underscore, left out of
``punctuation_runs``. The fits price one about as a run (0.59-0.67 of a token against
0.59-0.73: the word after it has no space before it, and the vocabularies split such
words further, ``-hand``, ``ling``); ``generic`` above one (0.69 against 0.30).
Not before a capital: ``DB-SCHEMA`` is ``DB``, ``-S``, ``CHE``, ``MA`` in o200k, the
hyphen no cheaper than other punctuation.
``snake_parts_split_*``: per vocabulary, the common words right after an underscore
(the parts of snake_case names) that it does not hold whole with the underscore
(``benchmarks/tokens_tables.py`` asks each: DeepSeek V4 holds ``_input`` and
``_window`` and splits ``_cap`` into ``_c`` and ``ap``, and holds 530 of the 20,000
common words so, cl100k and Qwen 3,915, o200k 3,178): a price per common word had put
``pytest -v`` lines, which are mostly test names, 9 % under DeepSeek's count.
``bare_words_split_*``: per vocabulary, the common words written bare (``BARE_BEFORE`` of
``ctxbudget.tokens.words``: the text's first word, or one after a line break, a digit, or
a mark that follows a mark or a space) that it does not hold whole bare (a common word
is one token of every vocabulary bare or after a space; bare, cl100k holds 13,964 of
the 20,000, o200k 14,243, DeepSeek V4 12,594, Qwen 14,319): the values of JSON arguments and
the words of paths after ``":"`` or ``"/`` (``{"filename":"reproduce.py"}``: seven tokens
of cl100k's, ``re`` and ``produce`` for one common word, eight of DeepSeek's).
``held_word_extra_tokens_*``: the words of Latin letters after a space that some
vocabulary holds whole but that are no common word (`` fichier``, `` données``,
`` getattr``; ``ctxbudget.tokens.held_words``), each priced as the common word that
stands in for it, and per vocabulary the tokens it spends on them beyond that one;
``held_word_extra_tokens_most`` the most any vocabulary spends so, word by word. Every
other feature sees the stand-in, not the word."""


_ASCII: Final = byte_span(0x00, 0x7F)
_CONTINUATION: Final = byte_span(0x80, 0xBF)

# One class letter per non-ASCII character (its lead byte), for classes only counted.
_LEAD_CLASSES: Final = {
    **dict.fromkeys(range(0xC2, 0xCE), "l"),  # U+0080-U+037F
    **dict.fromkeys(range(0xCE, 0xD5), "c"),  # U+0380-U+053F
    **dict.fromkeys(range(0xD5, 0xE0), "2"),  # U+0540-U+07FF
    **dict.fromkeys((0xE0, 0xE1, 0xE2, 0xEE), "3"),  # Indic, symbols, box drawing
    0xE3: "k",  # U+3000-U+3FFF: CJK punctuation, kana (and rarer blocks)
    **dict.fromkeys(range(0xE4, 0xEA), "h"),  # U+4000-U+9FFF, Han
    **dict.fromkeys(range(0xEA, 0xEE), "g"),  # U+A000-U+DFFF, nearly all Hangul
    0xEF: "f",  # U+F000-U+FFFF: compatibility ideographs, full-width forms
    **dict.fromkeys(range(0xF0, 0xF5), "4"),
}


_LEAD_CLASS_LETTERS: Final = "hklc234gf"
"""The classes of lead bytes that ``_piece_features`` counts, in the order of
``class_counts``' counts."""
# Each non-ASCII byte's class as its place in ``_LEAD_CLASS_LETTERS`` plus one (0: none).
_LEAD_CLASS_PLACES: Final = bytes(
    _LEAD_CLASS_LETTERS.index(_LEAD_CLASSES[b]) + 1
    if b in _LEAD_CLASSES and _LEAD_CLASSES[b] in _LEAD_CLASS_LETTERS
    else 0
    for b in range(256)
)
# One byte value per kind of ASCII character that is only counted (``class_counts``).
_KIND_DIGIT, _KIND_PUNCTUATION, _KIND_QUOTE, _KIND_CONTROL = b"d", b"p", b"q", b"c"
_KIND_UPPER, _KIND_NEWLINE, _KIND_TAB, _KIND_CARRIAGE_RETURN = b"U", b"n", b"t", b"\r"


def _kind(b: int) -> bytes:
    for kind, members in (
        (_KIND_DIGIT, byte_span(0x30, 0x39)),
        (_KIND_QUOTE, b"\"'"),
        (_KIND_PUNCTUATION, ASCII_PUNCTUATION),
        (_KIND_CONTROL, CONTROLS),
        (_KIND_UPPER, byte_span(0x41, 0x5A)),
        (_KIND_NEWLINE, b"\n"),
        (_KIND_TAB, b"\t"),
        (_KIND_CARRIAGE_RETURN, b"\r"),
    ):
        if b in members:
            return kind
    return b"."


_KINDS: Final = (
    _KIND_DIGIT,
    _KIND_QUOTE,
    _KIND_PUNCTUATION,
    _KIND_CONTROL,
    _KIND_UPPER,
    _KIND_NEWLINE,
    _KIND_TAB,
    _KIND_CARRIAGE_RETURN,
)
# Each byte's kind as its place in ``_KINDS`` plus one (0: none), for ``class_counts``.
_KIND_CLASSES: Final = bytes(
    _KINDS.index(_kind(b)) + 1 if _kind(b) in _KINDS else 0 for b in range(256)
)
# A character of U+0080-U+1FFF and the ASCII letter after it.
_LETTER_JOINS: Final = re.compile("[\x80-\u1fff][A-Za-z]")
# The vocabularies of the ``extra_tokens_*`` features, in ``FEATURE_NAMES`` order.
_VOCABULARY_COSTS: Final = ("cl100k", "o200k", "deepseek_v4", "qwen3")
_NO_EXTRA_TOKENS: Final = (0,) * len(_VOCABULARY_COSTS)
# The vocabularies whose Han costs are features of their own (cl100k's are the classes).
_HAN_COST_VOCABULARIES: Final = ("o200k", "deepseek_v4", "qwen3")
FLOOR_VOCABULARIES: Final = _VOCABULARY_COSTS
"""The vocabularies ``pair_floors`` bounds, in its order (``cl100k`` is cl100k_base,
``o200k`` o200k_base, ``deepseek_v4`` DeepSeek V4's, ``qwen3`` Qwen 3's)."""
_NO_FLOORS: Final = (0,) * len(FLOOR_VOCABULARIES)
_SPLITS_CAMEL_CASE: Final = frozenset({"o200k"})
"""The vocabularies whose pre-tokenizer cuts before a capital after a lower-case letter:
o200k_base's pattern takes a word as capitals then lower-case letters (``getValue`` is
``get`` and ``Value`` before any merge); cl100k, DeepSeek V4 and Qwen take a run of
letters whole."""
_GROUPS_DIGITS: Final = frozenset({"cl100k", "o200k", "deepseek_v4"})
"""The vocabularies whose pre-tokenizer takes a run of digits one to three at a time
(``\\p{N}{1,3}``), so that "6908665430" is "690", "866", "543", "0" before any merge; Qwen's
takes one digit at a time, and no token of it holds two."""
_COMPOSES: Final = tuple(v == "qwen3" for v in FLOOR_VOCABULARIES)
"""Per vocabulary of ``FLOOR_VOCABULARIES``: whether its tokenizer puts text in Unicode
normal form C before encoding (Qwen's does: a compatibility ideograph becomes the
unified one, a letter and the accent after it one character), so that its floors are
those of the composed text."""
_PAIRED_SETS: Final = (
    (HAN_IDEOGRAPHS, "han_pairs"),
    (KANA_AND_FORMS, "kana_pairs"),
    (TWO_BYTE, "mergeable_pairs"),
    (SCRIPTS_BEYOND_TWO_BYTES, "mergeable_pairs"),
    (HANGUL_SYLLABLES, "hangul_pairs"),
)
"""The sets of characters whose pairs are looked up (``ctxbudget.tokens.learned_pairs``),
with their tables in ``data/feature_tables.json``: per vocabulary for the ideographs and
the kana, the pairs any vocabulary learned for the others."""
_NO_LEARNED_PAIRS: Final = (0,) * (2 * len(FLOOR_VOCABULARIES) * len(_PAIRED_SETS))
"""The counts of ``learned_pairs`` of a text with no pair to look up."""


def _counts_of(set_place: int, *, lone: bool) -> slice:
    """Where the counts of a set of ``_PAIRED_SETS`` are in ``learned_pairs``' counts:
    per set, its unlearned pairs per vocabulary, then its lone characters."""
    start = len(FLOOR_VOCABULARIES) * (2 * set_place + lone)
    return slice(start, start + len(FLOOR_VOCABULARIES))


_HAN_UNLEARNED: Final = _counts_of(0, lone=False)
_KANA_LONE: Final = _counts_of(1, lone=True)
_HANGUL_UNLEARNED: Final = _counts_of(4, lone=False)
# The pairs any vocabulary learned are every vocabulary's: its first count is the set's.
_TWO_BYTE_UNLEARNED: Final = _counts_of(2, lone=False).start
_SCRIPTS_UNLEARNED: Final = _counts_of(3, lone=False).start
# The features of a piece from ``unlearned_pairs`` on are 0 in ASCII text.
_NO_SCRIPTS: Final = (0,) * (
    len(FEATURE_NAMES) - len(HELD_COUNT_NAMES) - FEATURE_NAMES.index("unlearned_pairs")
)
# The per-script letters (``greek_letters`` on). Two-byte scripts by lead byte (one byte
# per character in the text without continuation bytes) or pattern; the three-byte ones
# by the 128-code-point blocks of U+0800-U+1FFF they fill (``_blocks``: code point >> 7).
_GREEK_LEADS: Final = (b"\xce", b"\xcf")  # U+0380-U+03FF
# Armenian (U+0531-U+058F) spans three lead bytes, so it is a pattern of its runs.
_ARMENIAN_LETTERS: Final = "\u0531-\u058f"
_HEBREW_LEAD: Final = b"\xd7"  # U+05C0-U+05FF
_ARABIC_LEADS: Final = (b"\xd8", b"\xd9", b"\xda", b"\xdb")  # U+0600-U+06FF
# The letters Urdu adds to the Arabic alphabet (also written in Punjabi's Shahmukhi,
# Sindhi and Kashmiri); Farsi and Arabic write none of them.
_URDU_LETTERS: Final = re.compile("[\u0679\u0688\u0691\u06ba\u06be\u06c1\u06d2\u06d3]")
_THAI_BLOCKS: Final = (0x1C,)  # U+0E00-U+0E7F
_DEVANAGARI_BLOCKS: Final = (0x12,)  # U+0900-U+097F
_SCRIPT_BLOCKS: Final = (
    (0x18, 0x19, 0x1A),  # Telugu, Kannada, Malayalam U+0C00-U+0D7F
    (0x1B,),  # Sinhala U+0D80-U+0DFF
    (0x20,),  # Myanmar U+1000-U+107F
    (0x21,),  # Georgian U+10A0-U+10FF (and Myanmar's extension U+1080-U+109F)
    (0x24, 0x25, 0x26, 0x27),  # Ethiopic U+1200-U+13FF
    (0x2F,),  # Khmer U+1780-U+17FF
    (0x3D,),  # Vietnamese letters with two marks U+1E80-U+1EFF
    (0x1D,),  # Lao U+0E80-U+0EFF
    (0x15,),  # Gujarati U+0A80-U+0AFF
    (0x13,),  # Bengali U+0980-U+09FF
    (0x14,),  # Gurmukhi U+0A00-U+0A7F
    (0x17,),  # Tamil U+0B80-U+0BFF
)
# A UTF-16 code unit's high byte, kept below 0x20 (U+2000) and else a block no script
# has, so that twice it plus one still fits in a byte; and 1 for a low byte of 0x80 on.
_PAGE_BELOW_2000: Final = bytes(b if b < 0x20 else 0x40 for b in range(256))
_UPPER_HALF: Final = bytes(int(b >= 0x80) for b in range(256))
# The Cyrillic letters Russian does not use (U+0400-U+052F but А-я, Ё and ё): і ї є ґ of
# Ukrainian, ў of Belarusian, ј љ њ ћ џ of Serbian and Macedonian, ә ғ қ ң ө ұ ү һ of
# Kazakh, Mongolian and the other languages of Central Asia, which vocabularies trained
# mostly on Russian split (the guard once counted Mongolian at 66 % of cl100k's count).
_BEYOND_RUSSIAN_LETTERS: Final = "\u0400\u0402-\u040f\u0450\u0452-\u052f"
_CYRILLIC_LETTERS: Final = "\u0400-\u052f"
_CJK_PUNCTUATION_PREFIX: Final = b"\xe3\x80"  # U+3000-U+303F
_UPPER_GREEK_CYRILLIC_LEAD: Final = bytes(1 if b in (0xCE, 0xD0) else 0 for b in range(256))
_UPPER_GREEK_CYRILLIC_SECOND: Final = bytes(1 if 0x80 <= b <= 0xAF else 0 for b in range(256))

_HAN_FIRST, _HAN_LAST = 0x4000, 0x9FFF  # the code points of lead bytes E4-E9
_EMOJI_PLANE_FIRST, _EMOJI_PLANE_LAST = 0x1F000, 0x1FFFF
# A run of the marks of a Markdown table's rule with a pipe in it.
_TABLE_RULE: Final = re.compile(rb"[-:|]*\|[-:|]*")
# A pipe next to a dash or a colon: where there is none, no run holds a pipe and a
# dash. Written to start with the pipe, so that the search skips from pipe to pipe (ten
# times faster than four substring tests on the dev corpus).
_RULE_JOINT: Final = re.compile(rb"\|(?:(?=[-:])|(?<=[-:]\|))")
_PIECE: Final = PIECE  # longer texts are cut after a newline, which no feature spans
# The features of ``_piece_features``: all but those of the held words.
_PIECE_FEATURE_COUNT: Final = len(FEATURE_NAMES) - len(HELD_COUNT_NAMES)


@dataclass(frozen=True, slots=True)
class _Tables:
    """The shipped tables, as the lookups the features run. Patterns match runs, not
    single characters: fewer matches, then one ``sub`` or join to count them."""

    # The word counts (``ctxbudget.tokens.words``) over the common-word table.
    word_counts: WordCounts
    # The common-word table, for ``repeated_units``.
    common_words: frozenset[bytes]
    # Per ideograph of U+4000-U+9FFF, a 16-bit mask of its classes (``_han_classes``).
    han_classes: bytes
    costs_two: re.Pattern[str]
    # Either class (the two are disjoint): most texts hold neither, found in one pass.
    costs_two_or_three: re.Pattern[str]
    # Per vocabulary (``_VOCABULARY_COSTS`` order): its characters of cost 2 or 3, and
    # those of cost 3.
    own_costs: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...]
    emoji_plane_costs_three: re.Pattern[str]
    repeat_mergeable: re.Pattern[str]
    # A character of ``repeat_far`` and its repeats, as one match.
    repeat_far: re.Pattern[str]
    # The characters of ``repeat_far``, for ``repeated_units``.
    far_merging: frozenset[str]
    letter_joins: frozenset[str]
    # What each contraction's ending ("s" of "Let's") adds to the word features as a
    # word of its own (common_words, other_words, their letters, capped, rare letters,
    # one-letter words).
    contraction_endings: Mapping[bytes, tuple[int, int, int, int, int, int]]
    # Per vocabulary of ``FLOOR_VOCABULARIES``, the floors of ``pair_floors`` of a text's
    # bytes as they stand.
    pair_floors: PairFloors
    # Per vocabulary of ``FLOOR_VOCABULARIES``, what ``run_copies`` copies cost of each
    # character it merges when repeated (``one_character_run_costs``).
    run_costs: tuple[Mapping[str, int], ...]
    run_copies: int
    # Per vocabulary of ``FLOOR_VOCABULARIES``, what 1 to ``run_copies`` copies of each
    # ASCII punctuation mark and letter cost.
    ascii_run_costs: tuple[Mapping[str, tuple[int, ...]], ...]
    # The runs of marks and letters ``repeated_units`` looks for: those some vocabulary
    # spends two tokens or more on (a run that costs one lifts no count; "...", '"""' and
    # "www" are most).
    priced_ascii_runs: bytes
    # Per set of ``_PAIRED_SETS`` and vocabulary of ``FLOOR_VOCABULARIES``, the adjacent
    # characters it did not learn, then its lone ones.
    unlearned_pairs: UnlearnedPairCounts
    # Per vocabulary of ``FLOOR_VOCABULARIES``, the characters of the emoji plane it
    # spends one token on alone, and two (three on the rest).
    own_emoji_plane_costs: tuple[tuple[frozenset[str], frozenset[str]], ...]
    # The words of Latin letters some vocabulary holds whole after a space.
    held_words: HeldWords


def _class_of_ranges(ranges: list[list[int]]) -> re.Pattern[str]:
    return _sparse_runs(_members(ranges))


def _members(ranges: list[list[int]]) -> str:
    """The inside of a character class holding the code point ranges ``[first, last]``."""
    return "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges)


def _sparse_runs(members: str) -> re.Pattern[str]:
    """Runs of a class of characters that most text holds few of. Written ``[c][c]*``
    rather than ``[c]+``: a pattern that starts with a class lets the search skip the
    characters outside it in one C loop, instead of trying a match at every one."""
    return re.compile(f"[{members}][{members}]*")


_ARMENIAN: Final = _sparse_runs(_ARMENIAN_LETTERS)
_BEYOND_RUSSIAN: Final = _sparse_runs(_BEYOND_RUSSIAN_LETTERS)
# A Cyrillic word that holds one of them: its letters, which vocabularies merge less
# than Russian words even where they are Russian's (Mongolian, Kyrgyz, Belarusian).
# The rest of a line from its first Ң ң Ү ү Ө ө on: letters of Kazakh, Kyrgyz, Tatar and
# Mongolian (and Bashkir, Yakut...) that no Slavic language writes.
_CENTRAL_ASIAN_LINE_REST: Final = re.compile("[\u04a2\u04a3\u04ae\u04af\u04e8\u04e9][^\n]*")
# The rest of a line from its first Ў ў on: Belarusian's letter.
_BELARUSIAN_LINE_REST: Final = re.compile("[\u040e\u045e][^\n]*")
_CYRILLIC: Final = _sparse_runs(_CYRILLIC_LETTERS)
# Ү ү Ө ө: Kyrgyz and Mongolian write them, as Kazakh, Tatar and Bashkir do, which
# also write one of Ә ә Ғ ғ Қ қ Ұ ұ Һ һ Җ җ Ҙ ҙ Ҡ ҡ Ҫ ҫ.
_KYRGYZ_MONGOLIAN: Final = re.compile("[\u04ae\u04af\u04e8\u04e9]")
_KAZAKH_TATAR_BASHKIR: Final = re.compile(
    "[\u04d8\u04d9\u0492\u0493\u049a\u049b\u04b0\u04b1\u04ba\u04bb"
    "\u0496\u0497\u0498\u0499\u049e\u049f\u04aa\u04ab]"
)


def _kyrgyz_mongolian_letters(text: str) -> int:
    """The Cyrillic letters of ``text`` where it writes ү or ө and no letter of Kazakh,
    Tatar or Bashkir (``kyrgyz_mongolian_text_letters``); else 0."""
    if not _KYRGYZ_MONGOLIAN.search(text) or _KAZAKH_TATAR_BASHKIR.search(text):
        return 0
    return _matched(_CYRILLIC, text)


def _line_letters_after(rest_of_line: re.Pattern[str], text: str) -> int:
    """Cyrillic letters of the rests of lines ``rest_of_line`` matches (a line cut into
    two pieces starts again in the second)."""
    rest = "".join(rest_of_line.findall(text))
    return _matched(_CYRILLIC, rest)


_NON_RUSSIAN_WORDS: Final = re.compile(
    f"[{_CYRILLIC_LETTERS}]*[{_BEYOND_RUSSIAN_LETTERS}][{_CYRILLIC_LETTERS}]*"
)


_HAN_ONE, _HAN_THREE, _HAN_BEYOND_EVERYDAY = 0, 1, 2
"""Bits of ``han_classes``: an ideograph cl100k keeps whole, one it spends three tokens
or more on, and one outside the everyday set DeepSeek V4 and Qwen keep whole; then, per
vocabulary of ``_HAN_COST_VOCABULARIES``, one it keeps whole (from ``_HAN_OWN_ONE``) and
one it spends three or more on (from ``_HAN_OWN_THREE``)."""
_HAN_OWN_ONE: Final = 3
_HAN_OWN_THREE: Final = _HAN_OWN_ONE + len(_HAN_COST_VOCABULARIES)
_HAN_CLASS_BITS: Final = _HAN_OWN_THREE + len(_HAN_COST_VOCABULARIES)
_NO_HAN_CLASSES: Final = (0,) * _HAN_CLASS_BITS


def _han_classes(tables: Mapping[str, Any]) -> bytes:
    """Per code point of U+4000-U+9FFF (the characters the Han count counts: lead bytes
    E4-E9), a 16-bit little-endian mask of its classes (``_HAN_ONE`` and the rest), which
    ``range_class_counts`` counts in one pass."""
    masks = [0] * (_HAN_LAST - _HAN_FIRST + 1)

    def mark(members: str, bit: int) -> None:
        for character in members:
            masks[ord(character) - _HAN_FIRST] |= 1 << bit

    mark(tables["han_one_token"], _HAN_ONE)
    mark(tables["han_three_tokens"], _HAN_THREE)
    everyday = set(tables["han_everyday"])
    mark(
        "".join(map(chr, range(_HAN_FIRST, _HAN_LAST + 1))).translate(
            dict.fromkeys(map(ord, everyday))
        ),
        _HAN_BEYOND_EVERYDAY,
    )
    for place, name in enumerate(_HAN_COST_VOCABULARIES):
        mark(tables["own_han_costs"][name]["one"], _HAN_OWN_ONE + place)
        mark(tables["own_han_costs"][name]["three"], _HAN_OWN_THREE + place)
    return b"".join(mask.to_bytes(2, "little") for mask in masks)


@functools.cache
def _tables() -> _Tables:
    path = resources.files("ctxbudget.tokens").joinpath("data/feature_tables.json")
    tables = json.loads(path.read_text("utf-8"))
    return _Tables(
        # The lower-case common words as camelCase parts are written ("valid", "Valid",
        # "VALID"): a part is common when it is in there, with no ``lower()`` of each.
        word_counts=word_counter(
            (word.encode() for word in tables["common_words"]),
            _camel_spellings(tables["common_words"]),
            (word.encode() for word in tables["upper_case_tokens"]),
            _words_split(tables, "snake_parts_held"),
            _words_split(tables, "bare_words_held"),
        ),
        common_words=frozenset(word.encode() for word in tables["common_words"]),
        contraction_endings=_contraction_endings(tables["common_words"]),
        han_classes=_han_classes(tables),
        costs_two=_class_of_ranges(tables["costs_two"]),
        costs_two_or_three=_class_of_ranges(tables["costs_two"] + tables["costs_three"]),
        own_costs=tuple(
            (
                _class_of_ranges(
                    tables["own_costs"][name]["two"] + tables["own_costs"][name]["three"]
                ),
                _class_of_ranges(tables["own_costs"][name]["three"]),
            )
            for name in _VOCABULARY_COSTS
        ),
        emoji_plane_costs_three=_class_of_ranges(tables["emoji_plane_costs_three"]),
        repeat_mergeable=_class_of_ranges(tables["repeat_mergeable"]),
        repeat_far=_runs_of_one(tables["repeat_far"]),
        far_merging=frozenset(
            chr(code) for first, last in tables["repeat_far"] for code in range(first, last + 1)
        ),
        letter_joins=_two_by_two(tables["letter_joins"]),
        pair_floors=_pair_floors(tables),
        run_costs=tuple(MappingProxyType(tables["run_costs"][v]) for v in FLOOR_VOCABULARIES),
        run_copies=tables["run_copies"],
        ascii_run_costs=tuple(
            MappingProxyType(
                {mark: tuple(costs) for mark, costs in tables["ascii_run_costs"][v].items()}
            )
            for v in FLOOR_VOCABULARIES
        ),
        priced_ascii_runs=_priced_ascii_runs(
            [tables["ascii_run_costs"][v] for v in FLOOR_VOCABULARIES]
        ),
        unlearned_pairs=unlearned_pairs_counter(
            learned_pair_table(
                [(ranges, _learned_of(tables[name], ranges)) for ranges, name in _PAIRED_SETS]
            )
        ),
        own_emoji_plane_costs=tuple(
            (
                frozenset(tables["own_emoji_plane_costs"][v]["one"]),
                frozenset(tables["own_emoji_plane_costs"][v]["two"]),
            )
            for v in FLOOR_VOCABULARIES
        ),
        held_words=HeldWords.from_table(tables["held_words"]),
    )


def _pair_floors(tables: Mapping[str, Any]) -> PairFloors:
    """The counter of ``pair_floors`` of ``FLOOR_VOCABULARIES``, from the tables' pairs
    of ASCII tokens, bitmaps of the pairs and triples their tokens hold and of their
    tokens of three alphabet characters."""
    unmerged = unmerged_pair_table(
        [tables["ascii_pair_tokens"][v] for v in FLOOR_VOCABULARIES],
        [base64.b64decode(tables["joined_byte_pairs"][v]) for v in FLOOR_VOCABULARIES],
        [v in _SPLITS_CAMEL_CASE for v in FLOOR_VOCABULARIES],
    )
    return pair_floor_counter(unmerged, _forced_tables(tables), len(FLOOR_VOCABULARIES))


def _forced_tables(tables: Mapping[str, Any]) -> ForcedTables:
    """The forced-boundary tables of ``FLOOR_VOCABULARIES`` from the tables' JSON."""
    if tables["triple_alphabet"] != TRIPLE_ALPHABET.decode("ascii"):
        # The bitmaps are indexed by the alphabet they were written for.
        raise RuntimeError(
            "data/feature_tables.json was written for another TRIPLE_ALPHABET: "
            "run benchmarks/tokens_tables.py again"
        )
    return forced_boundary_tables(
        [base64.b64decode(tables["joined_byte_pairs"][v]) for v in FLOOR_VOCABULARIES],
        [_bitmap(tables["joined_triples"][v]) for v in FLOOR_VOCABULARIES],
        [tables["ascii_pair_tokens"][v] for v in FLOOR_VOCABULARIES],
        [_bitmap(tables["whole_triples"][v]) for v in FLOOR_VOCABULARIES],
        [_bitmap(tables["opening_pairs"][v]) for v in FLOOR_VOCABULARIES],
        [v in _GROUPS_DIGITS for v in FLOOR_VOCABULARIES],
    )


def _bitmap(packed: str) -> bytes:
    """A bitmap of the tables, stored as the base64 of its zlib."""
    return zlib.decompress(base64.b64decode(packed))


def _two_by_two(pairs: str) -> frozenset[str]:
    return frozenset(pairs[i : i + 2] for i in range(0, len(pairs), 2))


def _priced_ascii_runs(costs: list[dict[str, list[int]]]) -> bytes:
    """The ``shortest_runs`` table of the runs of each mark or letter that some
    vocabulary of ``costs`` (what 1, 2, ... copies of each cost) spends two tokens or
    more on."""
    lengths = {}
    for mark in costs[0]:
        by_length = [
            max(vocabulary[mark][n] for vocabulary in costs)
            for n in range(UNITS - 1, len(costs[0][mark]))
        ]
        costly = next(
            (n for n, cost in enumerate(by_length, UNITS) if cost > 1), len(by_length) + UNITS
        )
        lengths[mark] = costly
    return shortest_runs(lengths)


def _runs_of_one(ranges: list[list[int]]) -> re.Pattern[str]:
    """Runs of one character of ``ranges`` (a class first, so the search skips to it)."""
    return re.compile(f"([{_members(ranges)}])\\1*")


def _contraction_endings(
    common_words: list[str],
) -> Mapping[bytes, tuple[int, int, int, int, int, int]]:
    """Per contraction ending, what it adds to the word features as a word of its own:
    common words, other words, their letters, capped, rare letters, one-letter words
    (read-only: the tables are shared)."""
    common = set(common_words)
    endings: dict[bytes, tuple[int, int, int, int, int, int]] = {}
    for ending in _CONTRACTION_ENDINGS:
        rare = sum(c in RARE_LETTERS.decode() for c in ending)
        if ending in common:
            endings[ending.encode()] = (1, 0, 0, 0, 0, 0)
        elif len(ending) == 1:
            endings[ending.encode()] = (0, 0, 0, 0, 0, 1)
        else:
            endings[ending.encode()] = (0, 1, len(ending), min(len(ending), CAP), rare, 0)
    return MappingProxyType(endings)


def _words_split(tables: dict[str, Any], held_as: str) -> tuple[tuple[bytes, ...], ...]:
    """Per vocabulary of ``SNAKE_VOCABULARIES``, the common words it does not hold whole
    as the table ``held_as`` says (after an underscore, ``snake_parts_held``, or written
    bare, ``bare_words_held``: a byte per common word, 1 where it does)."""
    words = [word.encode() for word in tables["common_words"]]
    return tuple(
        tuple(compress(words, (not held for held in _bitmap(tables[held_as][v]))))
        for v in SNAKE_VOCABULARIES
    )


def _camel_spellings(common_words: list[str]) -> frozenset[bytes]:
    """The spellings a camelCase part (``words``: lower case, a capital then lower case,
    or capitals) of each lower-case common word can have."""
    lower = [w.encode() for w in common_words if w.isascii() and w.isalpha() and w.islower()]
    return frozenset((*lower, *(w.capitalize() for w in lower), *(w.upper() for w in lower)))


# Where each neighbour count is in ``neighbour_counts``' tuple.
(
    _LOWER_BEFORE_UPPER,
    _UPPER_PAIRS_BEFORE_LOWER,
    _PUNCTUATION_PAIRS,
    _PUNCTUATION_CHANGES,
    _SHORT_MERGING_TRIPLES,
    _WORD_JOINERS,
    _DIGIT_PAIRS,
    _SPACE_BEFORE_DIGIT,
    _SPACE_BEFORE_PUNCTUATION,
    _PUNCTUATION_BEFORE_NEWLINE,
    _NEWLINE_PAIRS,
    _SPACE_PAIRS,
    _SPACE_TRIPLES,
    _SPACE_BEFORE_NEWLINE,
    _TEXT_LINE_STARTS,
    _PUNCTUATION_LINE_STARTS,
    _WHITESPACE_CHANGES,
    _BRACKET_PAIRS,
    _QUOTE_PAIRS,
    _PAIRS_WITH_QUOTE,
    _MIXED_QUOTE_PAIRS,
    _SPACE_BEFORE_NON_ASCII,
    _LETTER_AFTER_NON_ASCII,
    _PUNCTUATION_BEFORE_NON_ASCII,
    _TWO_BYTE_LEAD_PAIRS,
    _HAN_LEAD_PAIRS,
    _THREE_BYTE_LEAD_PAIRS,
    _THREE_BYTE_SCRIPT_LEAD_PAIRS,
    _WORD_BEFORE_NEWLINE,
    _QUOTE_ALTERNATIONS,
    _DIGIT_PAIRS_OPENING_GROUPS,
    _HYPHEN_JOINERS,
) = range(len(NEIGHBOUR_NAMES))


def pair_floors(text: str, encoded: bytes | None = None, *, wanted: int = -1) -> tuple[int, ...]:
    """Per vocabulary of ``FLOOR_VOCABULARIES``, a count it does not go below on real
    text; 0 for empty text, and for the vocabularies whose bit of ``wanted`` is not set
    (bit i: ``FLOOR_VOCABULARIES[i]``; every one by default), as a profile that keeps
    its own floor asks for one. The larger of two:

    * one plus the token boundaries of ``text`` its tokens show
      (``unmerged_pair_table``). A boundary is an adjacent pair of ASCII characters
      that is none of its two-character tokens (``ascii_pair_tokens`` in
      ``data/feature_tables.json``; an apostrophe next to a letter and a capital after
      a lower-case letter left out), or a pair of bytes beyond ASCII, within a
      character or between two, that none of its tokens spans (``joined_byte_pairs``:
      a character it spends two tokens on, "ó" before a tab, a private-use character
      before a letter). BPE only ever merges two adjacent tokens into one of its
      tokens, so the boundary between two characters survives unless the pair is a
      token, or a longer token is built over it, which real text seldom has: the floor
      was above the exact count of 2 of 3,947 texts of prose, code, logs, agent traffic
      and translation catalogs (by one token, of 18 and 28), for one vocabulary each
      (the dev corpus and both halves of the others; ``benchmarks/tokens_lower_bound.py``
      measures it on half of them). Text built to fool a linear estimate (``"'&" * n``,
      ``"{O" * n``, ``"ó\\t" * n``) is mostly such boundaries;
    * its forced boundaries (``ctxbudget.tokens.boundaries``): one more than the fewest
      cuts that meet every pair of bytes and every triple of ASCII letters, digits and
      punctuation that no token of it holds, and that leave, inside a run of those, only
      pieces that can be its tokens; no split into its tokens has fewer, on any text.
      Random letters and base64 are mostly such triples and pieces
      (``"1FzfBUCUWIwyCQFlPqsB"``: 13 forced of 14 cl100k tokens, where the pairs
      showed 8).

    A vocabulary whose tokenizer puts text in normal form C first (Qwen's) has the
    floors of the composed text. ``encoded``: the text's UTF-8 bytes (surrogates
    passed), when the caller has them already."""
    if not text:
        return _NO_FLOORS
    data = text.encode("utf-8", "surrogatepass") if encoded is None else encoded
    count = _tables().pair_floors
    floors = count(data, wanted)
    # The normal form only matters to the vocabularies that compose: not asked for, no
    # text is put in it.
    composed = composed_bytes(text) if wanted & _COMPOSING else None
    if composed is None:
        return floors
    return tuple(map(_either, _COMPOSES, count(composed, wanted), floors))


def composed_bytes(text: str) -> bytes | None:
    """The UTF-8 bytes (surrogates passed) of ``text`` in normal form C, which Qwen's
    tokenizer encodes, or None where ``text`` is in that form already."""
    if text.isascii() or unicodedata.is_normalized("NFC", text):
        return None
    return unicodedata.normalize("NFC", text).encode("utf-8", "surrogatepass")


_COMPOSING: Final = sum(1 << v for v, composes in enumerate(_COMPOSES) if composes)
"""The mask (as ``pair_floors`` takes one) of the vocabularies of ``_COMPOSES``."""


def _either(composes: bool, composed: int, floor: int) -> int:
    return composed if composes else floor


def one_character_run_costs(character: str, times: int) -> tuple[int | None, ...]:
    """Per vocabulary of ``FLOOR_VOCABULARIES``, what ``character`` (beyond ASCII, or a
    mark or letter of ``ctxbudget.tokens.repeats.PRICED_CHARACTERS``) written ``times``
    times in a row costs, or ``None`` where the tables do not say.

    Where a vocabulary merges the character's repeats ("？？" and "——" are tokens of
    some), the price of a copy in a long run (``run_costs`` in
    ``data/feature_tables.json``: what ``run_copies`` copies cost, written by
    ``benchmarks/tokens_tables.py``) times ``times``, rounded up: a short run's ends can
    take a token more or less. A mark's or letter's run is its whole runs of
    ``run_copies`` and the cost of the rest, from the table of what each shorter run costs
    (``ascii_run_costs``): its tokens are 2 to 64 copies, so that a run's cost goes up and
    down with its length. Elsewhere no token of that vocabulary spans two copies, so
    each costs what the character costs alone: its class in the tables of costly
    characters of the Basic Multilingual Plane and of the emoji plane, ``None`` beyond
    them."""
    tables = _tables()
    costs: list[int | None] = []
    for v, merged in enumerate(tables.run_costs):
        shorter = tables.ascii_run_costs[v].get(character)
        run = merged.get(character)
        if shorter is not None:
            whole, rest = divmod(times, tables.run_copies)
            costs.append(whole * shorter[-1] + (shorter[rest - 1] if rest else 0))
        elif run is not None:
            costs.append(-(-run * times // tables.run_copies))
        else:
            alone = _alone_cost(tables, v, character)
            costs.append(None if alone is None else alone * times)
    return tuple(costs)


def _alone_cost(tables: _Tables, vocabulary: int, character: str) -> int | None:
    """What the vocabulary of ``FLOOR_VOCABULARIES`` at ``vocabulary`` spends on
    ``character`` alone, from the tables of costly characters of the Basic Multilingual
    Plane and of the emoji plane; ``None`` beyond them."""
    code = ord(character)
    if _EMOJI_PLANE_FIRST <= code <= _EMOJI_PLANE_LAST:
        one, two = tables.own_emoji_plane_costs[vocabulary]
        return 1 if character in one else 2 if character in two else 3
    if code > 0xFFFF:
        return None
    # The tables' Han classes hold the main block (those before it, the costly ones).
    if HAN_IDEOGRAPHS[0][0] <= code <= HAN_IDEOGRAPHS[0][1]:
        return _han_cost(tables, FLOOR_VOCABULARIES[vocabulary], character)
    # The vocabularies of the costly characters are those of the floors, in that order.
    two_or_three, three = tables.own_costs[vocabulary]
    return 3 if three.fullmatch(character) else 2 if two_or_three.fullmatch(character) else 1


def _han_cost(tables: _Tables, vocabulary: str, ideograph: str) -> int:
    """What ``vocabulary`` spends on an ideograph of U+4E00-U+9FFF alone: one token,
    three or two (cl100k's classes are the Han features', the others' their own)."""
    key = 2 * (ord(ideograph) - _HAN_FIRST)
    mask = int.from_bytes(tables.han_classes[key : key + 2], "little")
    if vocabulary in _HAN_COST_VOCABULARIES:
        place = _HAN_COST_VOCABULARIES.index(vocabulary)
        one, three = _HAN_OWN_ONE + place, _HAN_OWN_THREE + place
    else:
        one, three = _HAN_ONE, _HAN_THREE
    return 1 if mask >> one & 1 else 3 if mask >> three & 1 else 2


def unfamiliar_repeats(text: str, encoded: bytes | None = None) -> tuple[RepeatedUnit, ...]:
    """The units ``text`` repeats back to back that ordinary text does not
    (``ctxbudget.tokens.repeats.repeated_units`` over the common-word table, the rules
    of characters every vocabulary merges far left to the features); ``encoded`` as for
    ``pair_floors``."""
    tables = _tables()
    return repeated_units(
        text,
        tables.common_words,
        far_merging=tables.far_merging,
        marks=tables.priced_ascii_runs,
        encoded=encoded,
    )


def text_features(text: str, encoded: bytes | None = None) -> tuple[int, ...]:
    """The counts named by ``FEATURE_NAMES``, in that order; ``encoded`` as for
    ``pair_floors``."""
    text, encoded, held = _tables().held_words.stand_in(text, encoded)
    return _pieces_features(text, encoded) + held


def _pieces_features(text: str, encoded: bytes | None) -> tuple[int, ...]:
    """The features of ``_piece_features`` over ``text``, piece by piece."""
    if len(text) <= _PIECE:
        return _piece_features(text, encoded=encoded)
    totals = [0] * _PIECE_FEATURE_COUNT
    start = 0
    while start < len(text):
        end = start + _PIECE
        if end < len(text):
            end = _cut(text, start, end)
        line_start = start == 0 or text[start - 1] == "\n"
        for i, value in enumerate(_piece_features(text[start:end], line_start)):
            totals[i] += value
        start = end
    return tuple(totals)


def _cut(text: str, start: int, limit: int) -> int:
    """Where to end the piece that starts at ``start``: after the last whole run of
    newlines before ``limit`` (no feature spans that), else at ``limit``."""
    cut = text.rfind("\n", start, limit)
    if cut >= start and text[cut + 1 : cut + 2] == "\n":  # the run goes on past the limit
        run_start = len(text[start:cut].rstrip("\n")) + start
        cut = text.rfind("\n", start, run_start)
    return cut + 1 if cut >= start else limit


def _piece_features(
    text: str, line_start: bool = True, encoded: bytes | None = None
) -> tuple[int, ...]:
    """The features of one piece; ``line_start``: whether its first byte starts a line
    (the text's first piece, or one cut after a newline; not one cut inside a line
    longer than a piece); ``encoded``: its UTF-8 bytes, if at hand."""
    tables = _tables()
    full = data = text.encode("utf-8", "surrogatepass") if encoded is None else encoded
    ascii_only = text.isascii()
    if not ascii_only:
        # One byte per character from here on: continuation bytes carry no class.
        data = full.translate(None, _CONTINUATION)
    n = neighbour_counts(data, line_start)
    # The letter of a "\n", "\t" or "\r" escape is no part of the word after it: in JSON
    # the vocabularies split "\nimport" into "\n" and "import", not "nimport".
    spelled = _without_escaped_letters(data) if b"\\" in data else data
    case_switches = n[_LOWER_BEFORE_UPPER]
    # The per-word work of mixed-case words only where the neighbours show there are
    # some: a word is of mixed case (neither lower, upper nor title case) exactly when
    # it holds "aB" (a case switch) or "ABc", and letters next to each other are always
    # of one word.
    (
        word_count,
        other_word_count,
        other_letters,
        capped_letters,
        long_run_letters,
        rare_letters,
        consonant_triples,
        upper_consonant_triples,
        upper_case_tokens,
        one_letter_words,
        title_case_letters,
        *split_words,
        uncommon_parts,
        mixed_long_letters,
        common_camel_long_letters,
        uncovered_letters,
    ) = tables.word_counts(spelled, bool(case_switches or n[_UPPER_PAIRS_BEFORE_LOWER]))
    # Classes only counted are counted on one translation, in one byte value each,
    # without the characters of no such class (most of them), so each count is short.
    (
        digit_count,
        quotes,
        punctuation_only,
        controls,
        upper_count,
        newline_count,
        tab_count,
        carriage_returns,
    ) = class_counts(data, _KIND_CLASSES, len(_KINDS))
    joiners = n[_WORD_JOINERS]
    hyphens = n[_HYPHEN_JOINERS]
    directives = len(_DIRECTIVE.findall(data, 0 if line_start else 1)) if b"#" in data else 0
    endings = _CONTRACTION.findall(data) if b"'" in data else []
    punctuation_count = punctuation_only + quotes + controls
    pair_count = n[_PUNCTUATION_PAIRS]
    changes = n[_PUNCTUATION_CHANGES]
    crlf = data.count(b"\r\n") if carriage_returns else 0
    double_space_count = n[_SPACE_PAIRS]
    quote_repeats = n[_QUOTE_PAIRS]
    # A pair with a quote in it is a change unless both are the same quote (``""``,
    # ``''``: the quote repeats, but not in ``"'`` and ``'"``).
    unquoted = changes - (n[_PAIRS_WITH_QUOTE] - (quote_repeats - n[_MIXED_QUOTE_PAIRS]))
    contractions = len(endings)
    if contractions:
        common_in, other_in, letters_in, capped_in, rare_in, one_letter_in = map(
            sum, zip(*map(tables.contraction_endings.__getitem__, endings), strict=True)
        )
    else:
        common_in = other_in = letters_in = capped_in = rare_in = one_letter_in = 0
    # A space before a CR LF is a space before a line end.
    spaces_before_line_end = n[_SPACE_BEFORE_NEWLINE] + (data.count(b" \r\n") if crlf else 0)
    ascii_part = (
        word_count - other_word_count - upper_case_tokens - one_letter_words - common_in,
        other_word_count - other_in,
        other_letters - letters_in,
        capped_letters - capped_in,
        upper_case_tokens,
        one_letter_words - one_letter_in,
        title_case_letters,
        uncovered_letters,
        upper_count,
        rare_letters - rare_in,
        consonant_triples,
        upper_consonant_triples,
        case_switches,
        digit_count,
        digit_count - n[_DIGIT_PAIRS],
        digit_count - n[_DIGIT_PAIRS] + n[_DIGIT_PAIRS_OPENING_GROUPS],
        n[_SPACE_BEFORE_DIGIT],
        punctuation_count - contractions,
        punctuation_count - pair_count - joiners - directives - contractions - hyphens,
        joiners,
        directives,
        contractions,
        pair_count - changes,
        changes,
        n[_SPACE_BEFORE_PUNCTUATION],
        quotes - contractions,
        n[_PUNCTUATION_BEFORE_NEWLINE],
        newline_count,
        newline_count - n[_NEWLINE_PAIRS],
        tab_count,
        len(_TAB_RUNS.findall(data)) if tab_count else 0,
        len(_TAB_BEFORE_NON_LETTER.findall(data)) if tab_count else 0,
        controls,
        double_space_count - n[_SPACE_TRIPLES],
        double_space_count,
        spaces_before_line_end,
        # A CR that ends the text is neither yet: what comes next decides.
        carriage_returns - crlf - data.endswith(b"\r"),
        crlf,
        long_run_letters,
    )
    escapes = len(_ESCAPE.findall(data)) if b"\\" in data else 0
    rule_pieces = _table_rule_pieces(data) if b"|" in data else 0
    escapes_after_punctuation = len(_PUNCTUATION_BACKSLASH.findall(data)) if escapes else 0
    # A line feed after a carriage return is priced as a CR LF line end, not a change.
    changes_of_whitespace = n[_WHITESPACE_CHANGES] - crlf
    if ascii_only:
        return (
            *ascii_part,
            *_NOTHING_BEYOND_ASCII,
            changes_of_whitespace,
            uncommon_parts,
            0,
            unquoted,
            mixed_long_letters,
            common_camel_long_letters,
            quote_repeats,
            n[_TEXT_LINE_STARTS],
            n[_BRACKET_PAIRS],
            0,
            escapes,
            n[_PUNCTUATION_LINE_STARTS],
            n[_SHORT_MERGING_TRIPLES],
            escapes_after_punctuation,
            n[_WORD_BEFORE_NEWLINE],
            n[_QUOTE_ALTERNATIONS],
            rule_pieces,
            hyphens,
            *split_words,
            *_NO_SCRIPTS,
        )
    non_ascii = full.translate(None, _ASCII).decode("utf-8", "surrogatepass")
    (
        han,
        kana,  # lead byte E3, which starts every CJK punctuation mark
        latin_extended,
        greek_cyrillic,
        other_two_byte,
        other_three_byte,
        astral,
        hangul,
        compatibility_or_fullwidth,
    ) = class_counts(data, _LEAD_CLASS_PLACES, len(_LEAD_CLASS_LETTERS))
    # The ideographs of each class, and per vocabulary those it keeps whole and those it
    # spends three tokens or more on, in one pass.
    han_classes = (
        range_class_counts(full, _HAN_FIRST, tables.han_classes, _HAN_CLASS_BITS)
        if han
        else _NO_HAN_CLASSES
    )
    frequent, rare = han_classes[_HAN_ONE], han_classes[_HAN_THREE]
    cjk_punctuation = full.count(_CJK_PUNCTUATION_PREFIX) if kana else 0
    no_break_repeats = (
        _far_repeats(_NO_BREAK_SPACES, text, non_ascii) if "\xa0\xa0" in non_ascii else 0
    )
    mergeable = _matched(tables.repeat_mergeable, non_ascii) if other_three_byte else 0
    far_repeats = _far_repeats(tables.repeat_far, text, non_ascii) if mergeable else 0
    # One byte per character: the lead bytes E0 and E1 are U+0800-U+1FFF.
    script_letters = data.count(b"\xe0") + data.count(b"\xe1") if other_three_byte else 0
    # The blocks of 128 code points of the characters, once, for every script counted by them.
    blocks = _blocks(non_ascii) if script_letters else b""
    thai = _in_blocks(blocks, _THAI_BLOCKS)
    devanagari = _in_blocks(blocks, _DEVANAGARI_BLOCKS)
    scripts = tuple(_in_blocks(blocks, ids) for ids in _SCRIPT_BLOCKS)
    beyond_russian = _matched(_BEYOND_RUSSIAN, non_ascii) if greek_cyrillic else 0
    kyrgyz_mongolian = _kyrgyz_mongolian_letters(text) if beyond_russian else 0
    central_asian = (
        _line_letters_after(_CENTRAL_ASIAN_LINE_REST, text)
        if beyond_russian and not kyrgyz_mongolian
        else 0
    )
    arabic = sum(map(data.count, _ARABIC_LEADS)) if other_two_byte else 0
    two_byte_pairs = n[_TWO_BYTE_LEAD_PAIRS]
    script_pairs = n[_THREE_BYTE_SCRIPT_LEAD_PAIRS]
    paired = (
        tables.unlearned_pairs(full)
        if han > 1
        or kana + compatibility_or_fullwidth > 1
        or hangul > 1
        or two_byte_pairs + script_pairs
        else _NO_LEARNED_PAIRS
    )
    # The costly characters alone (a superset of every finer class below), so the
    # classes after this pass look at them only.
    costly = "".join(tables.costs_two_or_three.findall(non_ascii))
    costs = len(costly)
    costs_two = _matched(tables.costs_two, costly) if costs else 0
    extra_tokens = _extra_tokens(tables.own_costs, costly) if costs else _NO_EXTRA_TOKENS
    # A no-break space is priced as white space only (``unicode_spaces``): the letters
    # after it start a word, as after a space, and join nothing.
    no_break_spaces = non_ascii.count("\xa0")
    unicode_spaces = len(_UNICODE_SPACES.findall(non_ascii))
    letters_after = n[_LETTER_AFTER_NON_ASCII] - (
        len(_NO_BREAK_SPACE_LETTER.findall(text)) if no_break_spaces else 0
    )
    # Only letters after a character of U+0080-U+1FFF can join: none in most CJK text.
    joinable = latin_extended or greek_cyrillic or other_two_byte or script_letters
    learned_joins = _learned_joins(text, tables.letter_joins) if letters_after and joinable else 0
    return (
        *ascii_part,
        n[_SPACE_BEFORE_NON_ASCII],
        frequent,
        max(0, han - frequent - rare),
        rare,
        han_classes[_HAN_BEYOND_EVERYDAY],
        *(
            # Per vocabulary, the tokens beyond one its ideographs cost alone: one for each
            # it does not keep whole, one more for each of three tokens or more.
            han - han_classes[_HAN_OWN_ONE + place] + han_classes[_HAN_OWN_THREE + place]
            if han
            else 0
            for place in range(len(_HAN_COST_VOCABULARIES))
        ),
        han - n[_HAN_LEAD_PAIRS],
        kana - cjk_punctuation,
        hangul,
        cjk_punctuation + compatibility_or_fullwidth,
        latin_extended - no_break_spaces,
        greek_cyrillic,
        _greek_cyrillic_uppercase(full) if greek_cyrillic else 0,
        beyond_russian,
        other_two_byte,
        latin_extended + greek_cyrillic + other_two_byte - two_byte_pairs,
        other_three_byte - far_repeats - script_letters,
        other_three_byte - n[_THREE_BYTE_LEAD_PAIRS],
        astral,
        astral - full.count(b"\xf0\x9f") if astral else 0,
        costs_two,
        costs - costs_two,
        n[_PUNCTUATION_BEFORE_NON_ASCII],
        _matched(tables.emoji_plane_costs_three, non_ascii) if astral else 0,
        letters_after - learned_joins,
        unicode_spaces - no_break_repeats,
        unicode_space_changes(full) if unicode_spaces else 0,
        changes_of_whitespace,
        uncommon_parts,
        other_three_byte - mergeable - script_letters,
        unquoted,
        mixed_long_letters,
        common_camel_long_letters,
        quote_repeats,
        n[_TEXT_LINE_STARTS],
        n[_BRACKET_PAIRS],
        far_repeats,
        escapes,
        n[_PUNCTUATION_LINE_STARTS],
        n[_SHORT_MERGING_TRIPLES],
        escapes_after_punctuation,
        n[_WORD_BEFORE_NEWLINE],
        n[_QUOTE_ALTERNATIONS],
        rule_pieces,
        hyphens,
        *split_words,
        # Pairs no vocabulary learned: the same count in every vocabulary's place.
        paired[_TWO_BYTE_UNLEARNED] + paired[_SCRIPTS_UNLEARNED],
        script_letters - thai - devanagari - sum(scripts),
        thai,
        devanagari,
        *extra_tokens,
        learned_joins,
        sum(map(data.count, _GREEK_LEADS)) if greek_cyrillic else 0,
        _matched(_ARMENIAN, non_ascii) if other_two_byte or greek_cyrillic else 0,
        data.count(_HEBREW_LEAD) if other_two_byte else 0,
        arabic,
        *scripts,
        _matched(_NON_RUSSIAN_WORDS, text) if beyond_russian else 0,
        central_asian,
        _line_letters_after(_BELARUSIAN_LINE_REST, text) if beyond_russian else 0,
        _matched(_FORMAT_CONTROLS, non_ascii) if other_three_byte else 0,
        kyrgyz_mongolian,
        *paired[_HAN_UNLEARNED],
        *paired[_KANA_LONE],
        *paired[_HANGUL_UNLEARNED],
        arabic if arabic and _URDU_LETTERS.search(non_ascii) else 0,
    )


def _learned_of(learned: str | Mapping[str, str], ranges: CodeRanges) -> list[str]:
    """Per vocabulary of ``FLOOR_VOCABULARIES``, its learned pairs of ``ranges``: its own
    (a table by vocabulary), or those of ``learned`` in ``ranges`` (the pairs any
    vocabulary learned, of several sets)."""
    if not isinstance(learned, str):
        return [learned[v] for v in FLOOR_VOCABULARIES]
    first, last = ranges[0][0], ranges[-1][1]
    pairs = "".join(
        learned[i : i + 2] for i in range(0, len(learned), 2) if first <= ord(learned[i]) <= last
    )
    return [pairs] * len(FLOOR_VOCABULARIES)


def _table_rule_pieces(data: bytes) -> int:
    """The runs of one character in the table rules of ``data`` (``table_rule_pieces``)."""
    if _RULE_JOINT.search(data) is None:
        return 0
    pieces = 0
    for rule in _TABLE_RULE.findall(data):
        if b"-" in rule:
            pieces += 1 + sum(map(operator.ne, rule, rule[1:]))
    return pieces


def _in_blocks(blocks: bytes, ids: tuple[int, ...]) -> int:
    """Characters of ``blocks`` (``_blocks``) in one of the blocks ``ids``."""
    return sum(map(blocks.count, ids)) if blocks else 0


def _blocks(non_ascii: str) -> bytes:
    """One byte per UTF-16 code unit: its code point >> 7 below U+2000, else 0x80 or
    0x81. A character below U+2000 is one code unit, and its block is twice the unit's
    high byte plus its low byte's top bit, added byte by byte in one integer (every byte
    stays below 0x82, so nothing carries)."""
    units = non_ascii.encode("utf-16-le", "surrogatepass")
    pages = int.from_bytes(units[1::2].translate(_PAGE_BELOW_2000), "little")
    halves = int.from_bytes(units[0::2].translate(_UPPER_HALF), "little")
    return (pages * 2 + halves).to_bytes(len(units) // 2, "little")


def _learned_joins(text: str, learned: frozenset[str]) -> int:
    """ASCII letters after a character of U+0080-U+1FFF that make a ``learned`` pair."""
    return sum(map(learned.__contains__, _LETTER_JOINS.findall(text)))


# An apostrophe between a letter and one of these endings, then no letter: "Let's",
# "don't", "I'll", which o200k spends one token on and cl100k two ("Let", "'s").
_CONTRACTION_ENDINGS: Final = ("s", "t", "ll", "re", "ve", "m", "d")
_CONTRACTION: Final = re.compile(rb"'(?<=[A-Za-z]')(s|t|ll|re|ve|m|d)(?![A-Za-z])")
_TAB_RUNS: Final = re.compile(rb"\t\t+")
# A "#" at a line's start (the text's, or after a line feed: a piece that does not
# start a line is searched from its second byte) and a directive word, then no letter.
# Written from the "#", which the search skips to, with what is before it looked behind
# (a pattern that starts with the look-behind is tried at every byte: 15 times slower).
_DIRECTIVE: Final = re.compile(
    rb"#(?<![^\n]#)(?:define|include|endif|ifdef|ifndef|if|else|elif|undef|pragma|import|error)"
    rb"(?![A-Za-z])"
)
# A tab, then a byte that is no ASCII letter or white space (a lead byte beyond ASCII too:
# the bytes are one per character), or a single space before such a byte or a letter.
_TAB_BEFORE_NON_LETTER: Final = re.compile(rb"\t(?=[^A-Za-z\t\n\r\x0b\x0c ]| [^\t\n\r\x0b\x0c ])")
_ESCAPE: Final = re.compile(rb'\\[nrt"\\/]')
# A backslash after punctuation other than a backslash: "[\\n", ".\\"". Written from the
# backslash, which the search skips to, with the punctuation looked behind.
_PUNCTUATION_BACKSLASH: Final = re.compile(rb"\\(?<=[!-/:-@\[\]^-`{-~]\\)")


# With the zero-width no-break space (U+FEFF, a byte order mark): no vocabulary merges it.
# Not the zero-width non-joiner and joiner (U+200C, U+200D): Persian and the Indic
# scripts write them inside words, and emoji sequences between emoji, where the
# vocabularies merge them (priced here, they put Persian catalogs 2-5 points over).
_FORMAT_CONTROLS: Final = _sparse_runs("\u200b\u200e\u200f\u202a-\u202e\u2060-\u206f")
# Every vocabulary merges a run of no-break spaces to a token or two, as it merges a run
# of ASCII spaces: ``unicode_spaces`` prices the first of a run only (each of three in a
# row at two prices, a run was counted at five times its tokens).
_NO_BREAK_SPACES: Final = re.compile("\xa0+")
_NO_BREAK_SPACE_LETTER: Final = re.compile("\xa0[A-Za-z]")
_UNICODE_SPACES: Final = re.compile(f"[{UNICODE_SPACES}]")


def _extra_tokens(
    own_costs: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...], costly: str
) -> tuple[int, ...]:
    """Per vocabulary, the tokens beyond one its costly characters among ``costly`` cost
    alone: one for each of cost 2 or 3, one more for each of cost 3."""
    return tuple(
        _matched(two_or_three, costly) + _matched(three, costly)
        for two_or_three, three in own_costs
    )


def _far_repeats(runs: re.Pattern[str], text: str, non_ascii: str) -> int:
    """Repeats of ``runs`` in ``text``, looked for in the whole text only when its
    non-ASCII characters alone hold some (a repeat in the text is one there too)."""
    return _repeats(runs, text) if _repeats(runs, non_ascii) else 0


def _repeats(runs: re.Pattern[str], text: str) -> int:
    """Characters of ``text`` that repeat the one before them, in the runs ``runs``
    matches (each run's first character is not a repeat)."""
    rest, count = runs.subn("", text)
    return len(text) - len(rest) - count


def _matched(pattern: re.Pattern[str], text: str) -> int:
    """Characters of ``text`` that ``pattern`` (a class of runs) matches."""
    return len(text) - len(pattern.sub("", text))


def _without_escaped_letters(data: bytes) -> bytes:
    """``data`` with the letter of each ``\\n``, ``\\t`` and ``\\r`` escape blanked, for the
    word split only. Escaped backslashes go first, left to right as a JSON reader pairs
    them, so that the n of ``\\\\new`` stays the word's; byte replacements, each a
    search in C, where a regular expression would try a match at every byte."""
    paired = data.replace(b"\\\\", b"\x00\x00")
    return paired.replace(b"\\n", b"\\ ").replace(b"\\t", b"\\ ").replace(b"\\r", b"\\ ")


def _greek_cyrillic_uppercase(full: bytes) -> int:
    """Upper-case Greek and Cyrillic letters: a lead byte CE or D0, then 80-AF."""
    leads = int.from_bytes(full.translate(_UPPER_GREEK_CYRILLIC_LEAD), "little")
    seconds = int.from_bytes(full.translate(_UPPER_GREEK_CYRILLIC_SECOND), "little")
    return ((leads << 8) & seconds).bit_count()


# The features between ``long_run_letters`` and ``whitespace_changes`` are 0 in ASCII text.
_NOTHING_BEYOND_ASCII: Final = (0,) * (
    FEATURE_NAMES.index("whitespace_changes") - FEATURE_NAMES.index("long_run_letters") - 1
)
