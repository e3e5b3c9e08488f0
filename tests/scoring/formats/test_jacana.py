"""jacana / Edinburgh++ JSON: the sure and sure+poss files together give S and P."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from scoring.alignment.links import Alignment
from scoring.errors import FormatError
from scoring.formats import get_format, jacana
from tests.scoring.formats._helpers import assert_points_at


def item(
    pair_id: str = "mtc-A:1", sure: str = "0-0", possible: str = "", **extra: Any
) -> dict[str, Any]:
    return {
        "id": pair_id,
        "name": pair_id,
        "source": "the cat sat",
        "target": "a cat was sitting",
        "sureAlign": sure,
        "possibleAlign": possible,
        **extra,
    }


def write_json(path: Path, items: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(items, indent=4), encoding="utf-8")
    return path


def test_the_edinburgh_train_split_has_714_pairs_with_sure_and_possible_links(
    shared_data: Path,
) -> None:
    folder = shared_data / "edinburgh"
    records = list(
        get_format("jacana").read(
            [folder / "gold.train.sure.json", folder / "gold.train.sure+poss.json"]
        )
    )
    assert len(records) == 714
    assert len({record.id for record in records}) == 714
    assert Counter(record.subcorpus for record in records).keys() == {"mtc", "news", "novels"}
    with_possible = [r for r in records if r.gold_alignment and r.gold_alignment.possible_only]
    assert all(record.gold_alignment and record.gold_alignment.sure for record in records)
    assert len(with_possible) > 300

    # Independent check of the derivation P − S = (sure+poss) − sure, straight from the JSON.
    sure_items = json.loads((folder / "gold.train.sure.json").read_text(encoding="utf-8"))
    poss_items = json.loads((folder / "gold.train.sure+poss.json").read_text(encoding="utf-8"))
    for record, s_item, p_item in zip(records, sure_items, poss_items, strict=True):
        sure = set(s_item["sureAlign"].split())
        both = set(p_item["sureAlign"].split())
        assert record.gold_alignment is not None
        assert {f"{i}-{j}" for i, j in record.gold_alignment.sure} == sure
        assert {f"{i}-{j}" for i, j in record.gold_alignment.possible_only} == both - sure

    first = records[0]
    assert first.id == "news-common:2143"
    assert first.metadata == {"jacana": {"partition": "common"}}
    # Link direction: source index first (source "Hackett" = target "Hackett").
    assert (0, 6) in first.gold_alignment.sure  # type: ignore[union-attr]
    assert first.source_tokens[0] == first.target_tokens[6] == "Hackett"


def test_the_files_may_be_given_in_either_order(tmp_path: Path) -> None:
    sure = write_json(tmp_path / "x.sure.json", [item(sure="0-0")])
    both = write_json(tmp_path / "x.sure+poss.json", [item(sure="0-0 2-3")])
    (forward,) = jacana.read([sure, both])
    (backward,) = jacana.read([both, sure])
    assert forward.gold_alignment == backward.gold_alignment
    assert forward.gold_alignment == Alignment.from_links(3, 4, [(0, 0)], [(2, 3)])


def test_one_file_reads_sure_align_and_possible_align(tmp_path: Path) -> None:
    path = write_json(tmp_path / "x.json", [item(sure="1-1", possible="2-2 2-3")])
    (record,) = get_format("jacana").read([path], annotator="carol")
    assert record.gold_alignment is None
    assert record.annotations["carol"].alignment == Alignment.from_links(
        3, 4, [(1, 1)], [(2, 2), (2, 3)]
    )


def test_write_then_read_keeps_links_and_is_byte_identical(tmp_path: Path) -> None:
    path = write_json(tmp_path / "x.json", [item(sure="1-1 0-0", possible="2-3"), item("b:2")])
    first = tmp_path / "first.json"
    second = tmp_path / "second.json"
    jacana.write(jacana.read([path]), first)
    jacana.write(jacana.read([first]), second)
    assert first.read_bytes() == second.read_bytes()
    written = json.loads(first.read_text(encoding="utf-8"))
    assert written[0]["sureAlign"] == "0-0 1-1"
    assert written[0]["possibleAlign"] == "2-3"
    assert list(jacana.read([first])) == list(jacana.read([path]))


# --- bad input -------------------------------------------------------------------------------


def read_error(*paths: Path) -> FormatError:
    with pytest.raises(FormatError) as caught:
        list(jacana.read(list(paths)))
    return caught.value


def test_it_rejects_links_outside_the_sentence(tmp_path: Path) -> None:
    path = write_json(tmp_path / "x.json", [item(), item("mtc-A:2", sure="0-0 3-1")])
    error = read_error(path)
    # json.dumps(indent=4): "[" on line 1, first object lines 2-9, second from line 10.
    assert_points_at(error, path, 10, "sureAlign")
    assert "outside the sentence pair" in str(error)


def test_the_line_of_a_later_pair_counts_every_line_before_it(tmp_path: Path) -> None:
    good, bad = item("a:1"), item("a:3", sure="0-0 3-1")
    objects = [json.dumps(good), json.dumps(item("a:2")), json.dumps(bad)]
    path = tmp_path / "x.json"
    path.write_text("[\n\n" + objects[0] + ",\n" + objects[1] + ",\n\n\n " + objects[2] + "]")
    assert_points_at(read_error(path), path, 7, "sureAlign")


def test_it_rejects_ids_that_differ_between_the_two_files(tmp_path: Path) -> None:
    sure = write_json(tmp_path / "x.sure.json", [item("a:1")])
    both = write_json(tmp_path / "x.sure+poss.json", [item("a:2")])
    assert_points_at(read_error(sure, both), both, 2, "id")


def test_it_rejects_tokens_that_differ_between_the_two_files(tmp_path: Path) -> None:
    sure = write_json(tmp_path / "x.sure.json", [item()])
    both = write_json(tmp_path / "x.sure+poss.json", [item(target="a cat sat down")])
    assert_points_at(read_error(sure, both), both, 2, "target")


def test_it_rejects_a_sure_link_missing_from_the_sure_poss_file(tmp_path: Path) -> None:
    sure = write_json(tmp_path / "x.sure.json", [item(sure="0-0 1-1")])
    both = write_json(tmp_path / "x.sure+poss.json", [item(sure="0-0")])
    assert_points_at(read_error(sure, both), both, 2, "sureAlign")


def test_it_rejects_files_with_different_pair_counts(tmp_path: Path) -> None:
    sure = write_json(tmp_path / "x.sure.json", [item("a:1")])
    both = write_json(tmp_path / "x.sure+poss.json", [item("a:1"), item("a:2")])
    assert_points_at(read_error(sure, both), both, 10, "id")


def test_it_rejects_duplicate_ids(tmp_path: Path) -> None:
    path = write_json(tmp_path / "x.json", [item("a:1"), item("a:1")])
    error = read_error(path)
    assert_points_at(error, path, 10, "id")
    assert "duplicate id 'a:1' (first used on line 2, pair #1)" in str(error)


def test_it_rejects_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(b"")
    assert_points_at(read_error(path), path, 1, "(file)")


def test_it_rejects_an_empty_array(tmp_path: Path) -> None:
    path = write_json(tmp_path / "x.json", [])
    assert_points_at(read_error(path), path, 1, "(json)")


def test_it_rejects_non_utf8_bytes_naming_the_field(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    text = json.dumps([item(), item("a:2", target="caf\u00e9 au lait")], indent=4)
    path.write_bytes(text.encode("ascii").replace(b"caf\\u00e9", b"caf\xe9"))
    error = read_error(path)
    assert_points_at(error, path, 14, "target")


def test_it_rejects_broken_json_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('[\n  {"id": "a:1",\n   "source": "x" "target": "y"}\n]\n', encoding="utf-8")
    assert_points_at(read_error(path), path, 3, "(json)")


def test_it_rejects_a_missing_field(tmp_path: Path) -> None:
    broken = item()
    del broken["source"]
    path = write_json(tmp_path / "x.json", [broken])
    assert_points_at(read_error(path), path, 2, "source")


def test_it_rejects_three_files(tmp_path: Path) -> None:
    path = write_json(tmp_path / "x.json", [item()])
    with pytest.raises(FormatError, match="takes 1 to 2 input path"):
        list(get_format("jacana").read([path, path, path]))


# --- a minified file: every pair on line 1, so errors name the pair too ----------------------


def write_minified(path: Path, items: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(items, separators=(",", ":")), encoding="utf-8")
    return path


def test_an_error_in_a_minified_file_names_the_pair_by_position_and_id(tmp_path: Path) -> None:
    items = [item("a:1"), item("a:2"), item("a:3", sure="0-0 3-1")]
    path = write_minified(tmp_path / "x.json", items)
    error = read_error(path)
    assert_points_at(error, path, 1, "sureAlign")
    assert "pair #3 (id 'a:3')" in str(error)


def test_a_pair_without_an_id_is_named_by_its_position(tmp_path: Path) -> None:
    broken = item("a:2")
    del broken["id"]
    error = read_error(write_minified(tmp_path / "x.json", [item("a:1"), broken]))
    assert error.field == "id"
    assert "pair #2:" in str(error)


def test_a_duplicate_id_in_a_minified_file_names_both_pairs(tmp_path: Path) -> None:
    path = write_minified(tmp_path / "x.json", [item("a:1"), item("a:2"), item("a:1")])
    message = str(read_error(path))
    assert "pair #3: duplicate id 'a:1' (first used on line 1, pair #1)" in message


def test_too_many_tokens_in_a_minified_file_names_the_pair(tmp_path: Path) -> None:
    long = item("a:2", source=" ".join(["w"] * 300))
    error = read_error(write_minified(tmp_path / "x.json", [item("a:1"), long]))
    assert error.field == "source"
    assert "pair #2 (id 'a:2')" in str(error)


def test_broken_json_in_a_minified_file_names_the_pair_and_column(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    first = json.dumps(item("a:1"), separators=(",", ":"))
    path.write_text(f'[{first},{{"id":"a:2","source":"x" "target":"y"}}]', encoding="utf-8")
    error = read_error(path)
    assert_points_at(error, path, 1, "(json)")
    column = len(f'[{first},{{"id":"a:2","source":"x" ') + 1
    assert f"pair #2, column {column}" in str(error)


def test_non_utf8_bytes_in_a_minified_file_name_the_pair(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    items = [item("a:1"), item("a:2", target="caf\u00e9 au lait")]
    text = json.dumps(items, separators=(",", ":"))
    path.write_bytes(text.encode("ascii").replace(b"caf\\u00e9", b"caf\xe9"))
    error = read_error(path)
    assert_points_at(error, path, 1, "target")
    assert "pair #2 (id 'a:2')" in str(error)


def test_a_cut_short_file_says_what_is_wrong_without_a_dangling_position(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('[{"id": "a:1", "source": "x', encoding="utf-8")
    message = str(read_error(path))
    assert message.endswith("not valid JSON in pair #1, column 26: Unterminated string"), message
