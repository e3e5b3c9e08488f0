"""Edit-operation states: which substitution a token pair gets, and the paraphrase table reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.errors import FormatError
from scoring.pfsm.features import (
    N_FEATURES,
    ST_BLEMMA,
    ST_BPARA,
    ST_BWORD,
    ST_SLEMMA,
    ST_SPARA,
    ST_SPUNC,
    ST_SSYN,
    ST_SWORD,
    Lexicon,
    ParaphraseTable,
    feature_names,
    is_punctuation,
)


def test_feature_names_cover_states_transitions_and_stop() -> None:
    names = feature_names()
    assert len(names) == N_FEATURES == len(set(names))
    assert names[ST_SWORD] == "state:S_WORD"
    assert "trans:S_WORD>INS" in names and "stop:J3" in names


def test_each_token_pair_gets_the_first_matching_substitution() -> None:
    table = ParaphraseTable([("wrt", "re"), ("in spite of", "despite")])
    lexicon = Lexicon(synonyms=True, paraphrases=table)
    source = ["The", "car", "attacks", ",", "wrt", "cars"]
    target = ["the", "automobile", "attack", ",", "re", "."]
    single = lexicon.match_tables(source, target).single
    assert single[0, 0] == ST_SWORD  # case-insensitive
    assert single[1, 1] == ST_SSYN  # car / automobile share a WordNet synset
    assert single[2, 2] == ST_SLEMMA  # Porter stem "attack"
    assert single[3, 3] == ST_SPUNC  # a comma is punctuation, not a word
    assert single[4, 4] == ST_SPARA
    assert single[5, 1] == ST_SSYN  # "cars" reaches the synset through WordNet's morphology
    assert single[3, 5] == -1  # different punctuation does not match
    assert single[0, 1] == -1


def test_block_substitutions_match_joined_words_stems_and_phrases() -> None:
    table = ParaphraseTable([("look into", "investigate")])
    lexicon = Lexicon(synonyms=False, paraphrases=table)
    tables = lexicon.match_tables(
        ["can", "not", "look", "into", "it"], ["cannot", "investigate", "look", "intos"]
    )
    block = tables.block  # shapes (1, 2), (2, 1), (2, 2)
    assert block[0, 0, 1] == ST_BWORD  # "can not" → "cannot"
    assert block[2, 1, 1] == ST_BPARA  # "look into" → "investigate"
    assert block[2, 2, 2] == ST_BLEMMA  # "look into" / "look intos": same stems joined
    assert block[3, 3, 0] == -1  # spans past the end of the target are never matched
    assert tables.single[2, 2] == ST_SWORD


def test_punctuation_is_made_of_punctuation_or_symbols_only() -> None:
    assert is_punctuation(",") and is_punctuation("--") and is_punctuation("$")
    assert not is_punctuation("U.S.") and not is_punctuation("3") and not is_punctuation("")


def test_paraphrase_table_reads_tab_and_moses_style_lines(tmp_path: Path) -> None:
    path = tmp_path / "table.txt"
    path.write_text(
        "# comment\nquick\tfast\n\nbuy ||| purchase ||| 0.5\n"
        "make up\tcompose\ntoo long a\tphrase\n",
        encoding="utf-8",
    )
    table = ParaphraseTable.load(path)
    assert ("fast", "quick") in table and ("quick", "fast") in table
    assert ("purchase", "buy") in table and ("make up", "compose") in table
    # phrases longer than two tokens are pruned, as in Wang & Manning 2012, §3.2
    assert len(table) == 3


def test_shared_ppdb_table_loads(shared_data: Path) -> None:
    table = ParaphraseTable.load(shared_data / "ppdb" / "ppdb-1.0-xxxl-lexical.synonyms.tsv")
    assert len(table) > 200_000
    assert ("post-op", "post-operative") in table


def test_a_table_line_without_a_second_phrase_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.tsv"
    path.write_text("quick\tfast\nlonely\n", encoding="utf-8")
    with pytest.raises(FormatError) as error:
        ParaphraseTable.load(path)
    assert error.value.line == 2 and error.value.field == "phrase2"
    assert str(path) in str(error.value)
    path.write_text("\tfast\n", encoding="utf-8")
    with pytest.raises(FormatError, match="field 'phrase1'"):
        ParaphraseTable.load(path)


def test_a_missing_table_is_a_format_error(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="cannot read"):
        ParaphraseTable.load(tmp_path / "absent.tsv")


@pytest.mark.parametrize(
    ("data", "line", "message"),
    [
        (b"quick\tfast\ncaf\xe9\tbar\n", 2, "the byte 0xE9 after 'caf' is not UTF-8 text"),
        ("quick\tfast\n".encode("utf-16"), 1, "the file is saved as UTF-16"),
    ],
)
def test_a_table_that_is_not_utf8_is_refused_naming_its_line_not_a_traceback(
    data: bytes, line: int, message: str, tmp_path: Path
) -> None:
    path = tmp_path / "table.tsv"
    path.write_bytes(data)
    with pytest.raises(FormatError) as error:
        ParaphraseTable.load(path)
    assert error.value.line == line and str(path) in str(error.value)
    assert message in str(error.value)


def test_a_tables_byte_order_mark_and_crlf_line_ends_are_not_part_of_its_phrases(
    tmp_path: Path,
) -> None:
    path = tmp_path / "table.tsv"
    path.write_bytes(b"\xef\xbb\xbfquick\tfast\r\nbuy\tpurchase\r\n")
    table = ParaphraseTable.load(path)
    assert ("quick", "fast") in table and ("buy", "purchase") in table
