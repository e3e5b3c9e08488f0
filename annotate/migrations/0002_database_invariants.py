"""Invariants SQL can check but Django's CheckConstraint cannot express portably.

- A link's indices must lie within its pair's token counts (checked through the link's parent).
- ``n_source``/``n_target`` equal the lengths of the stored token lists and never change once set.
- The annotation event log is append-only.

Written for SQLite (the embedded default) and PostgreSQL (production); any other backend is
refused, so an unsupported deployment fails at ``migrate`` rather than losing the guarantees.
"""

from django.db import migrations

# table -> SQL that selects the pair row of a link row named NEW
LINK_TABLES = {
    "annotate_autolink": (
        "SELECT p.n_source, p.n_target FROM annotate_sentencepair p "
        "JOIN annotate_autoalignment a ON a.pair_id = p.id WHERE a.id = NEW.alignment_id"
    ),
    "annotate_annotationlink": (
        "SELECT p.n_source, p.n_target FROM annotate_sentencepair p "
        "JOIN annotate_assignment s ON s.pair_id = p.id "
        "JOIN annotate_annotation n ON n.assignment_id = s.id WHERE n.id = NEW.annotation_id"
    ),
    "annotate_goldlink": (
        "SELECT p.n_source, p.n_target FROM annotate_sentencepair p "
        "JOIN annotate_goldalignment g ON g.pair_id = p.id WHERE g.id = NEW.gold_id"
    ),
}


def _sqlite_statements() -> list[str]:
    out = []
    for table, pair_sql in LINK_TABLES.items():
        n_src = pair_sql.replace("p.n_source, p.n_target", "p.n_source")
        n_tgt = pair_sql.replace("p.n_source, p.n_target", "p.n_target")
        for when, name in (("INSERT", "ins"), ("UPDATE OF i, j", "upd")):
            out.append(
                f"CREATE TRIGGER {table}_bounds_{name} BEFORE {when} ON {table} "
                f"FOR EACH ROW WHEN NEW.i >= ({n_src}) OR NEW.j >= ({n_tgt}) "
                "BEGIN SELECT RAISE(ABORT, 'link index outside the sentence pair'); END"
            )
    out += [
        "CREATE TRIGGER annotate_sentencepair_lengths_ins BEFORE INSERT ON annotate_sentencepair "
        "FOR EACH ROW WHEN json_array_length(NEW.source_tokens) != NEW.n_source "
        "OR json_array_length(NEW.target_tokens) != NEW.n_target "
        "BEGIN SELECT RAISE(ABORT, 'n_source/n_target differ from the token lists'); END",
        "CREATE TRIGGER annotate_sentencepair_lengths_upd BEFORE UPDATE ON annotate_sentencepair "
        "FOR EACH ROW WHEN NEW.n_source != OLD.n_source OR NEW.n_target != OLD.n_target "
        "OR json_array_length(NEW.source_tokens) != NEW.n_source "
        "OR json_array_length(NEW.target_tokens) != NEW.n_target "
        "BEGIN SELECT RAISE(ABORT, 'the token counts of a pair cannot change'); END",
        "CREATE TRIGGER annotate_annotationevent_append_only BEFORE UPDATE ON "
        "annotate_annotationevent BEGIN "
        "SELECT RAISE(ABORT, 'the annotation event log is append-only'); END",
    ]
    return out


def _sqlite_reverse() -> list[str]:
    names = [f"{t}_bounds_{n}" for t in LINK_TABLES for n in ("ins", "upd")]
    names += [
        "annotate_sentencepair_lengths_ins",
        "annotate_sentencepair_lengths_upd",
        "annotate_annotationevent_append_only",
    ]
    return [f"DROP TRIGGER IF EXISTS {name}" for name in names]


def _postgres_statements() -> list[str]:
    out = []
    for table, pair_sql in LINK_TABLES.items():
        select_into = pair_sql.replace(
            "SELECT p.n_source, p.n_target", "SELECT p.n_source, p.n_target INTO ns, nt"
        )
        out.append(
            f"CREATE FUNCTION {table}_bounds() RETURNS trigger LANGUAGE plpgsql AS $$ "
            "DECLARE ns integer; nt integer; BEGIN "
            f"{select_into}; "
            "IF NEW.i >= ns OR NEW.j >= nt THEN RAISE EXCEPTION "
            "'link index outside the sentence pair (link %-%, pair %×%)', NEW.i, NEW.j, ns, nt "
            "USING ERRCODE = 'check_violation'; END IF; RETURN NEW; END $$"
        )
        out.append(
            f"CREATE TRIGGER {table}_bounds BEFORE INSERT OR UPDATE OF i, j ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {table}_bounds()"
        )
    out += [
        "ALTER TABLE annotate_sentencepair ADD CONSTRAINT pair_token_counts CHECK ("
        "jsonb_array_length(source_tokens) = n_source AND "
        "jsonb_array_length(target_tokens) = n_target)",
        "CREATE FUNCTION annotate_sentencepair_frozen() RETURNS trigger LANGUAGE plpgsql AS $$ "
        "BEGIN IF NEW.n_source <> OLD.n_source OR NEW.n_target <> OLD.n_target THEN "
        "RAISE EXCEPTION 'the token counts of a pair cannot change' "
        "USING ERRCODE = 'check_violation'; END IF; RETURN NEW; END $$",
        "CREATE TRIGGER annotate_sentencepair_frozen BEFORE UPDATE ON annotate_sentencepair "
        "FOR EACH ROW EXECUTE FUNCTION annotate_sentencepair_frozen()",
        "CREATE FUNCTION annotate_annotationevent_append_only() RETURNS trigger "
        "LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION "
        "'the annotation event log is append-only' USING ERRCODE = 'check_violation'; END $$",
        "CREATE TRIGGER annotate_annotationevent_append_only BEFORE UPDATE ON "
        "annotate_annotationevent FOR EACH ROW EXECUTE FUNCTION "
        "annotate_annotationevent_append_only()",
    ]
    return out


def _postgres_reverse() -> list[str]:
    out = [f"DROP FUNCTION IF EXISTS {t}_bounds() CASCADE" for t in LINK_TABLES]
    out += [
        "ALTER TABLE annotate_sentencepair DROP CONSTRAINT IF EXISTS pair_token_counts",
        "DROP FUNCTION IF EXISTS annotate_sentencepair_frozen() CASCADE",
        "DROP FUNCTION IF EXISTS annotate_annotationevent_append_only() CASCADE",
    ]
    return out


def _run(statements_for: dict[str, list[str]]):
    def run(apps, schema_editor):
        vendor = schema_editor.connection.vendor
        if vendor not in statements_for:
            raise RuntimeError(
                f"database backend '{vendor}' is not supported: use SQLite or PostgreSQL"
            )
        # A plain cursor, not schema_editor.execute(): the PL/pgSQL bodies contain '%'
        # placeholders of their own that must not be read as query parameters.
        with schema_editor.connection.cursor() as cursor:
            for statement in statements_for[vendor]:
                cursor.execute(statement)

    return run


ROLE_GROUPS = ("annotator", "adjudicator", "admin")


def create_groups(apps, schema_editor):
    group_model = apps.get_model("auth", "Group")
    for name in ROLE_GROUPS:
        group_model.objects.get_or_create(name=name)


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.RunPython(
            _run({"sqlite": _sqlite_statements(), "postgresql": _postgres_statements()}),
            _run({"sqlite": _sqlite_reverse(), "postgresql": _postgres_reverse()}),
        ),
        migrations.RunPython(create_groups, migrations.RunPython.noop),
    ]
