"""Sentence BLEU/NIST/WER/PER (scoring.mt.metrics): hand-checked examples, Finch, Hwang & Sumita's
(2005) variants, the
kernels against a literal transcription of mteval-v13a (tests/scoring/mt/mteval_reference.py),
and bad
input."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from scoring.errors import FormatError, InputError, ScoringError, UndefinedError
from scoring.mt.metrics import (
    FEATURE_NAMES,
    bleu,
    both_directions,
    ngram_stats,
    nist,
    one_direction,
    per,
    read_mteval_sgml,
    signature,
    tokenize_13a,
    wer,
)
from tests.scoring.mt import mteval_reference as ref_impl


def toks(text: str) -> list[str]:
    return text.split()


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Hello, world.", ["Hello", ",", "world", "."]),
        ("It costs 3.50, ok", ["It", "costs", "3.50", ",", "ok"]),
        ("1,000 people in 1990-2000", ["1,000", "people", "in", "1990", "-", "2000"]),
        ("a &amp; b &lt;c&gt; &quot;q&quot;", ["a", "&", "b", "<", "c", ">", '"', "q", '"']),
        ("it's well-known (really)!", ["it's", "well-known", "(", "really", ")", "!"]),
        ("  spaced\n\tout  ", ["spaced", "out"]),
        ("", []),
    ],
)
def test_it_tokenizes_like_mteval_13a(text: str, tokens: list[str]) -> None:
    assert tokenize_13a(text) == tokens


def test_it_keeps_case_like_mteval_dash_c_and_lowercases_ascii_only_otherwise() -> None:
    assert tokenize_13a("ÄBC Def") == ["ÄBC", "Def"]
    assert tokenize_13a("ÄBC Def", lowercase=True) == ["Äbc", "def"]


def test_bleu_without_brevity_penalty_is_seed_003s_variant() -> None:
    stats = ngram_stats([toks("the cat sat")], [toks("the cat sat on the mat")])
    # All precisions are 1 (mteval counts an order longer than the segment as 1); only the
    # brevity penalty exp(1 - 6/3) separates the two variants.
    assert bleu(stats, order=4)[0] == pytest.approx(math.exp(-1.0), rel=1e-15)
    for order in (1, 2, 3, 4):
        assert bleu(stats, order=order, brevity_penalty=False)[0] == 1.0


def test_bleu_smooths_missing_orders_as_mteval_13a_does() -> None:
    stats = ngram_stats([toks("a b c d")], [toks("a b x y")])
    # p1 = 2/4, p2 = 1/3, then no 3-gram (1 / (2·2)) and no 4-gram (1 / (4·1)) match.
    expected = (0.5 * (1 / 3) * (1 / 4) * (1 / 4)) ** 0.25
    assert bleu(stats)[0] == pytest.approx(expected, rel=1e-14)
    assert bleu(stats, smoothing="none")[0] == 0.0
    assert bleu(stats, order=2, smoothing="none")[0] == pytest.approx(math.sqrt(0.5 / 3), 1e-14)


def test_nist_weighs_matches_by_information_from_the_whole_reference_set() -> None:
    refs = [toks("a b"), toks("a c")]
    stats = ngram_stats([toks("a b"), toks("a")], refs)
    # count: a 2, b 1, c 1 of 4 words; "a b" 1. info(a) = 1, info(b) = 2, info(a b) = 1 bit.
    assert nist(stats, order=1).tolist() == [
        1.5,
        pytest.approx(1.0 * 2 ** -((math.log(2) / math.log(1.5)) ** 2)),
    ]
    assert nist(stats, order=2)[0] == 2.5
    # At a length ratio of 2/3 the penalty is exactly one half.
    third = ngram_stats([toks("a b")], [toks("a b c")])
    assert nist(third, order=1)[0] == pytest.approx(0.5 * third.info[0, 0] / 2, rel=1e-14)


def test_information_can_come_from_a_separate_reference_set() -> None:
    info_refs = [toks("a b"), toks("a c"), toks("d d")]
    stats = ngram_stats([toks("a b d")], [toks("a b d")], info_refs=info_refs)
    info = ref_impl.ngram_info(info_refs)
    assert stats.info[0, 0] == pytest.approx(info["a"] + info["b"] + info["d"], rel=1e-15)
    assert stats.info[0, 1] == pytest.approx(info["a b"], rel=1e-15)  # "b d" is unseen: 0


def test_wer_and_per_follow_seed_003s_definitions() -> None:
    assert wer(toks("a b c d"), toks("a c d e")) == 0.5  # delete b, insert e
    assert per(toks("a b c d"), toks("a c d e")) == 0.25  # b and e are unmatched
    assert wer(toks("a a b"), toks("a b b c")) == 0.5
    assert per(toks("a a b"), toks("a b b c")) == 0.5  # max(1, 2) / 4
    assert per(toks("x y"), toks("y x")) == 0.0
    assert wer(toks("x y"), toks("y x")) == 1.0
    assert (wer([], []), per(["a"], [])) == (0.0, 1.0)


def test_features_are_averaged_over_both_directions() -> None:
    first = [toks("the cat sat on the mat"), toks("a b c d e")]
    second = [toks("the cat sat"), toks("e d c b a")]
    feats = both_directions(first, second)
    assert feats.shape == (2, len(FEATURE_NAMES)) == (2, 11)
    np.testing.assert_array_equal(feats, both_directions(second, first))
    forward, backward = one_direction(first, second), one_direction(second, first)
    np.testing.assert_array_equal(feats, (forward + backward) / 2)
    # "the" occurs twice in the long sentence but once in the short one: clipped to 3 / 6.
    assert forward[0, FEATURE_NAMES.index("BLEU1")] == 0.5
    assert backward[0, FEATURE_NAMES.index("BLEU1")] == 1.0
    assert forward[1, FEATURE_NAMES.index("PER")] == 0.0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_kernels_match_a_literal_transcription_of_mteval(seed: int) -> None:
    rng = np.random.default_rng(seed)
    vocab = ["0", "a", "b", "c", "d", "0.5"]
    hyps = [[vocab[k] for k in rng.integers(0, 6, rng.integers(0, 16))] for _ in range(150)]
    refs = [[vocab[k] for k in rng.integers(0, 6, rng.integers(1, 16))] for _ in range(150)]
    stats = ngram_stats(hyps, refs)
    info = ref_impl.ngram_info(refs)
    for k, (h, r) in enumerate(zip(hyps, refs, strict=True)):
        ref_len, match, tst_cnt, ref_cnt, tst_info = ref_impl.score_segment(h, r, info)
        assert stats.matches[k].tolist() == match[1:6]
        assert stats.hyp_ngrams[k].tolist() == tst_cnt[1:6]
        assert stats.ref_ngrams[k].tolist() == ref_cnt[1:6]
        np.testing.assert_allclose(stats.info[k], tst_info[1:6], rtol=1e-13, atol=1e-13)
        for order in (1, 2, 3, 4):
            assert bleu(stats, order=order)[k] == pytest.approx(
                ref_impl.bleu_score(ref_len, match, tst_cnt, order), rel=1e-14, abs=1e-300
            )
            assert bleu(stats, order=order, smoothing="none")[k] == pytest.approx(
                ref_impl.bleu_score_nosmoothing(ref_len, match, tst_cnt, order), rel=1e-14
            )
        for order in (1, 2, 3, 4, 5):
            assert nist(stats, order=order)[k] == pytest.approx(
                ref_impl.nist_score(tst_cnt, ref_cnt, tst_info, order), rel=1e-13, abs=1e-13
            )


def test_a_bigram_after_the_word_zero_is_weighed_as_perl_does() -> None:
    refs = [toks("0 x y"), toks("0 x"), toks("z z z z")]
    stats = ngram_stats([toks("0 x")], [toks("0 x")], info_refs=refs)
    # Perl treats the prefix string "0" as false: count("0 x") over all 9 words, not over "0".
    assert stats.info[0, 1] == pytest.approx(math.log2(9 / 2), rel=1e-15)
    assert ref_impl.ngram_info(refs)["0 x"] == pytest.approx(math.log2(9 / 2), rel=1e-15)


def test_system_scores_come_from_summed_statistics() -> None:
    hyps = [toks("a b c"), toks("d e")]
    refs = [toks("a b d"), toks("d e f g")]
    total = ngram_stats(hyps, refs).total()
    assert len(total) == 1
    assert total.matches[0, 0] == 4 and total.hyp_ngrams[0, 0] == 5 and total.ref_len[0] == 7
    assert bleu(total, order=1)[0] == pytest.approx(0.8 * math.exp(1 - 7 / 5), rel=1e-15)


def test_it_reads_mteval_sgml(tmp_path: Path) -> None:
    path = tmp_path / "t.sgm"
    path.write_text(
        '<tstset setid="t" srclang="en" trglang="de">\n<DOC docid="d1" sysid="s">\n'
        '<seg id="1">Hello ,\n  world &amp; co</seg>\n<seg id=2>x</seg>\n</DOC>\n</tstset>\n'
    )
    segs = read_mteval_sgml(path)
    assert [(s.doc_id, s.seg_id, s.text, s.line) for s in segs] == [
        ("d1", "1", "Hello , world &amp; co", 3),
        ("d1", "2", "x", 5),
    ]


def test_it_names_file_line_and_field_of_bad_sgml(tmp_path: Path) -> None:
    path = tmp_path / "bad.sgm"
    path.write_text(
        '<refset setid="t">\n<doc docid="d1">\n<seg id="1">a</seg>\n<seg>b</seg>\n'
        "</doc>\n</refset>\n"
    )
    with pytest.raises(FormatError) as info:
        read_mteval_sgml(path)
    assert (info.value.path, info.value.line, info.value.field) == (str(path), 4, "id")
    assert str(path) in str(info.value)
    empty = tmp_path / "empty.sgm"
    empty.write_text("nothing here")
    with pytest.raises(FormatError, match="no <srcset>, <refset> or <tstset>"):
        read_mteval_sgml(empty)
    with pytest.raises(FormatError, match="cannot read"):
        read_mteval_sgml(tmp_path / "missing.sgm")


def test_it_rejects_bad_input_with_clear_errors() -> None:
    with pytest.raises(InputError, match="2 hypotheses but 1 references"):
        ngram_stats([["a"], ["b"]], [["a"]])
    with pytest.raises(InputError, match="reference 0: expected a token sequence, got a string"):
        ngram_stats([["a"]], ["a b"])  # type: ignore[list-item]
    with pytest.raises(InputError, match="hypothesis 1: tokens must be non-empty strings"):
        ngram_stats([["a"], ["b", ""]], [["a"], ["b"]])
    with pytest.raises(InputError, match="tokens must be non-empty strings"):
        ngram_stats([["a"]], [["a", 3]])  # type: ignore[list-item]
    stats = ngram_stats([["a"], ["b"]], [["a"], []])
    with pytest.raises(UndefinedError, match="segment 1: NIST is undefined for an empty reference"):
        nist(stats)
    with pytest.raises(InputError, match="BLEU order must be an integer in 1…9"):
        bleu(stats, order=0)
    with pytest.raises(InputError, match="NIST-6 needs statistics up to order 6"):
        nist(ngram_stats([["a"]], [["a"]]), order=6)
    with pytest.raises(InputError, match="smoothing must be"):
        bleu(stats, smoothing="add-one")
    with pytest.raises(InputError, match="max_order must be a positive integer"):
        ngram_stats([["a"]], [["a"]], max_order=0)
    with pytest.raises(InputError, match="must be a string"):
        tokenize_13a(b"bytes")  # type: ignore[arg-type]
    assert issubclass(InputError, ScoringError) and issubclass(UndefinedError, ScoringError)


def test_bleu_statistics_can_skip_the_information_weights() -> None:
    hyps = [toks("a b c"), toks("d e")]
    refs = [toks("a b d"), toks("d e f g")]
    full = ngram_stats(hyps, refs)
    lean = ngram_stats(hyps, refs, information=False)
    np.testing.assert_array_equal(lean.matches, full.matches)
    np.testing.assert_array_equal(bleu(lean), bleu(full))
    assert not lean.info.any() and full.info.any()


def test_settings_have_a_signature() -> None:
    assert signature("bleu", order=4, brevity_penalty=False) == (
        "bleu:mteval-v13a|order:4|smooth:mteval|bp:no"
    )
    assert signature("nist", order=5) == "nist:mteval-v13a|order:5|info:reference-set"
    with pytest.raises(InputError, match="metric must be 'bleu' or 'nist'"):
        signature("meteor", order=1)
