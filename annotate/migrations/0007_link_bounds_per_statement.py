"""On PostgreSQL, check link bounds once per statement instead of once per row.

The row trigger ran a three-table lookup for every link inserted: a save replacing 7,200 links
of a 120×120 pair took 600–770 ms with it and 500–620 ms with one check per statement. A
statement trigger reads the statement's new rows as a transition table and checks them all in
one join; the error names the first offending link as before. SQLite keeps its row triggers
(plain ``WHEN`` clauses, cheap there).
"""

from django.db import migrations

# table -> the join from the statement's new rows (``new_rows``) to each row's pair ``p``
LINK_TABLES = {
    "annotate_autolink": (
        "new_rows r JOIN annotate_autoalignment a ON a.id = r.alignment_id "
        "JOIN annotate_sentencepair p ON p.id = a.pair_id"
    ),
    "annotate_annotationlink": (
        "new_rows r JOIN annotate_annotation n ON n.id = r.annotation_id "
        "JOIN annotate_assignment s ON s.id = n.assignment_id "
        "JOIN annotate_sentencepair p ON p.id = s.pair_id"
    ),
    "annotate_goldlink": (
        "new_rows r JOIN annotate_goldalignment g ON g.id = r.gold_id "
        "JOIN annotate_sentencepair p ON p.id = g.pair_id"
    ),
}

# The row triggers of 0002, restored when this migration is reversed.
ROW_PAIRS = {
    "annotate_autolink": (
        "SELECT p.n_source, p.n_target INTO ns, nt FROM annotate_sentencepair p "
        "JOIN annotate_autoalignment a ON a.pair_id = p.id WHERE a.id = NEW.alignment_id"
    ),
    "annotate_annotationlink": (
        "SELECT p.n_source, p.n_target INTO ns, nt FROM annotate_sentencepair p "
        "JOIN annotate_assignment s ON s.pair_id = p.id "
        "JOIN annotate_annotation n ON n.assignment_id = s.id WHERE n.id = NEW.annotation_id"
    ),
    "annotate_goldlink": (
        "SELECT p.n_source, p.n_target INTO ns, nt FROM annotate_sentencepair p "
        "JOIN annotate_goldalignment g ON g.pair_id = p.id WHERE g.id = NEW.gold_id"
    ),
}


def _forward() -> list[str]:
    out = []
    for table, join in LINK_TABLES.items():
        out += [
            f"DROP TRIGGER IF EXISTS {table}_bounds ON {table}",
            f"DROP FUNCTION IF EXISTS {table}_bounds()",
            f"CREATE FUNCTION {table}_bounds_rows() RETURNS trigger LANGUAGE plpgsql AS $$ "
            "DECLARE bad record; BEGIN "
            f"SELECT r.i, r.j, p.n_source, p.n_target INTO bad FROM {join} "
            "WHERE r.i >= p.n_source OR r.j >= p.n_target LIMIT 1; "
            "IF FOUND THEN RAISE EXCEPTION "
            "'link index outside the sentence pair (link %-%, pair %×%)', "
            "bad.i, bad.j, bad.n_source, bad.n_target USING ERRCODE = 'check_violation'; "
            "END IF; RETURN NULL; END $$",
        ]
        for event, name in (("INSERT", "ins"), ("UPDATE", "upd")):
            out.append(
                f"CREATE TRIGGER {table}_bounds_{name} AFTER {event} ON {table} "
                "REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT "
                f"EXECUTE FUNCTION {table}_bounds_rows()"
            )
    return out


def _reverse() -> list[str]:
    out = []
    for table, select_into in ROW_PAIRS.items():
        out += [
            f"DROP FUNCTION IF EXISTS {table}_bounds_rows() CASCADE",
            f"CREATE FUNCTION {table}_bounds() RETURNS trigger LANGUAGE plpgsql AS $$ "
            "DECLARE ns integer; nt integer; BEGIN "
            f"{select_into}; "
            "IF NEW.i >= ns OR NEW.j >= nt THEN RAISE EXCEPTION "
            "'link index outside the sentence pair (link %-%, pair %×%)', NEW.i, NEW.j, ns, nt "
            "USING ERRCODE = 'check_violation'; END IF; RETURN NEW; END $$",
            f"CREATE TRIGGER {table}_bounds BEFORE INSERT OR UPDATE OF i, j ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {table}_bounds()",
        ]
    return out


def _run(statements):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        if schema_editor.connection.vendor != "postgresql":
            return
        # A plain cursor: the PL/pgSQL bodies hold '%' placeholders of their own.
        with schema_editor.connection.cursor() as cursor:
            for statement in statements():
                cursor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("annotate", "0006_annotation_prefill_edits")]

    operations = [migrations.RunPython(_run(_forward), _run(_reverse))]
