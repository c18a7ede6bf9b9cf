"""scripts/model_catalogs.py (issue 25): parallel text read from the gettext catalogs packages ship.

The model build reads these pairs to train the rows of translated words toward the English
original; the tests cover what decides which pairs it sees: the .po and .mo readers, the
language taken from the folders, the cleaning, and the limits on untrusted files.
"""

from __future__ import annotations

import gettext
import io
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from .test_model_domain import load_script


@pytest.fixture(scope="module")
def catalogs() -> ModuleType:
    return load_script("model_catalogs")


def mo_bytes(messages: dict[str, str], order: str = "little") -> bytes:
    """A compiled catalog laid out as GNU gettext documents it (header, two tables, strings)."""
    keys = sorted(messages)
    ids = b"".join(k.encode() + b"\0" for k in keys)
    strs = b"".join(messages[k].encode() + b"\0" for k in keys)
    count = len(keys)
    originals = 28
    translations = originals + 8 * count
    data_start = translations + 8 * count
    table_o, table_t = b"", b""
    offset = data_start
    for k in keys:
        n = len(k.encode())
        table_o += n.to_bytes(4, order) + offset.to_bytes(4, order)  # type: ignore[arg-type]
        offset += n + 1
    for k in keys:
        n = len(messages[k].encode())
        table_t += n.to_bytes(4, order) + offset.to_bytes(4, order)  # type: ignore[arg-type]
        offset += n + 1
    header = b"".join(v.to_bytes(4, order) for v in  # type: ignore[arg-type]
                      (0x950412DE, 0, count, originals, translations, 0, 0))
    return header + table_o + table_t + ids + strs


HEADER = "Content-Type: text/plain; charset=UTF-8\n"


@pytest.mark.parametrize("order", ["little", "big"])
def test_mo_catalog_is_read_as_gettext_reads_it(catalogs: ModuleType, order: str) -> None:
    messages = {"": HEADER, "Restart the kernel": "Redémarrer le noyau", "Open File": "Ouvrir le fichier",
                "one file\0%d files": "un fichier\0%d fichiers", "menu\x04Open": "Ouvrir"}
    data = mo_bytes(messages, order)
    stdlib = gettext.GNUTranslations(io.BytesIO(data))  # the file is valid for Python's own reader
    assert stdlib.gettext("Restart the kernel") == "Redémarrer le noyau"
    got = catalogs.parse_mo(data)
    # The header and the message with a context are left out; a plural keeps its singular forms.
    assert got == {"Restart the kernel": "Redémarrer le noyau", "Open File": "Ouvrir le fichier",
                   "one file": "un fichier"}


def test_mo_catalog_with_tables_outside_the_file_is_refused(catalogs: ModuleType) -> None:
    data = bytearray(mo_bytes({"Save": "Enregistrer"}))
    with pytest.raises(ValueError):
        catalogs.parse_mo(bytes(data[:40]))  # cut short: the tables point past the end
    data[8:12] = (10**6).to_bytes(4, "little")  # a count the file cannot hold
    with pytest.raises(ValueError):
        catalogs.parse_mo(bytes(data))
    with pytest.raises(ValueError):
        catalogs.parse_mo(b"\0" * 64)  # no magic number


PO = r'''# A comment
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"

#: jobs.py:10
msgid "Background jobs"
msgstr "后台任务"

#, fuzzy
msgid "Deploy to production"
msgstr "部署到测试环境"

msgid ""
"Roll back a failed "
"deployment"
msgstr ""
"回滚失败的"
"部署"

msgctxt "verb"
msgid "Order"
msgstr "排序"

msgid "%(count)s queue"
msgid_plural "%(count)s queues"
msgstr[0] "%(count)s 个队列"

msgid "Not translated yet"
msgstr ""

#~ msgid "Obsolete entry"
#~ msgstr "过时条目"
msgid "Say \"hello\"\n"
msgstr "说\"你好\"\n"
'''


def test_po_catalog_entries_continuations_and_plurals(catalogs: ModuleType) -> None:
    got = catalogs.parse_po(PO)
    assert got == {
        "Background jobs": "后台任务",
        "Roll back a failed deployment": "回滚失败的部署",
        "%(count)s queue": "%(count)s 个队列",
        'Say "hello"\n': '说"你好"\n',
    }


@pytest.mark.parametrize(("path", "language"), [
    ("django/conf/locale/zh_Hans/LC_MESSAGES/django.po", "zh"),
    ("pack/locale/fr_FR/LC_MESSAGES/jupyterlab.mo", "fr"),
    ("locale/de/LC_MESSAGES/x.mo", "de"),
    ("locale/sr@latin/LC_MESSAGES/x.mo", "sr"),
    ("wagtail/locale/zh_Hant/LC_MESSAGES/django.mo", None),
    ("app/locale/zh-TW/LC_MESSAGES/app.po", None),
    ("docs/fr/notes.po", None),
])
def test_language_is_the_folder_above_lc_messages(catalogs: ModuleType, path: str, language: str | None) -> None:
    assert catalogs.language_of(path) == language


def test_placeholders_markup_and_accelerators_are_taken_out(catalogs: ModuleType) -> None:
    clean = catalogs.clean_message
    assert clean("Deleted %(count)d <b>items</b> from {name}&hellip;") == "Deleted items from"
    assert clean("&Open  %s file…") == "Open file"
    assert clean("_Save and continue") == "Save and continue"
    assert clean("Rock & roll") == "Rock & roll"  # an ampersand between words is text
    assert not catalogs.usable("Save", "Save")  # left untranslated
    assert not catalogs.usable("%s", "%s")
    assert not catalogs.usable("42", "42 件")
    assert catalogs.usable("Save", "Speichern")


def test_pairs_from_a_wheel_keep_the_chosen_languages_and_skip_broken_catalogs(
        catalogs: ModuleType, tmp_path: Path) -> None:
    wheel = tmp_path / "pack-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("pack/locale/fr/LC_MESSAGES/pack.mo", mo_bytes({"": HEADER, "Run all cells": "Exécuter toutes les cellules"}))
        archive.writestr("pack/locale/ja/LC_MESSAGES/pack.po", 'msgid "Run all cells"\nmsgstr "すべてのセルを実行"\n')
        archive.writestr("pack/locale/it/LC_MESSAGES/pack.po", 'msgid "Run all cells"\nmsgstr "Esegui tutte le celle"\n')
        archive.writestr("pack/locale/de/LC_MESSAGES/pack.mo", b"not a catalog at all, but long enough")
        archive.writestr("pack/locale/es/LC_MESSAGES/pack.po", b'msgid "Run"\nmsgstr "\xff\xfe"\n')  # not UTF-8
    folder = tmp_path / "tree" / "locale" / "zh_Hans" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "app.po").write_text('msgid "Run all cells"\nmsgstr "运行所有单元格"\n', "utf-8")
    got = list(catalogs.catalog_pairs([wheel, tmp_path / "tree"], {"fr", "ja", "de", "es", "zh"}))
    assert got == [("fr", "Run all cells", "Exécuter toutes les cellules"),
                   ("ja", "Run all cells", "すべてのセルを実行"),
                   ("zh", "Run all cells", "运行所有单元格")]


def test_oversized_catalog_is_skipped(catalogs: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "locale" / "fr" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "big.po").write_text('msgid "Open"\nmsgstr "Ouvrir"\n', "utf-8")
    assert list(catalogs.catalog_pairs([tmp_path], {"fr"})) == [("fr", "Open", "Ouvrir")]
    monkeypatch.setattr(catalogs, "MAX_CATALOG_BYTES", 10)
    assert list(catalogs.catalog_pairs([tmp_path], {"fr"})) == []


def test_build_reads_distinct_pairs_capped_per_language(tmp_path: Path) -> None:
    domain = load_script("model_domain")
    folder = tmp_path / "locale"
    for language, words in {"fr": ["Ouvrir", "Fermer", "Enregistrer"], "de": ["Öffnen", "Schließen", "Speichern"]}.items():
        (folder / language / "LC_MESSAGES").mkdir(parents=True)
        po = "".join(f'msgid "{en}"\nmsgstr "{tr}"\n\n' for en, tr in zip(["Open", "Close", "Save"], words, strict=True))
        (folder / language / "LC_MESSAGES" / "a.po").write_text(po, "utf-8")
        (folder / language / "LC_MESSAGES" / "b.po").write_text(po, "utf-8")  # the same pairs again
    pairs = domain.read_pairs([tmp_path], {"fr", "de"}, 2)
    assert len(pairs) == len(set(pairs)) == 4
    assert sorted(p[0] for p in pairs) == ["de", "de", "fr", "fr"]
    # A language's sample is chosen by the English text, so the same messages are kept in each.
    assert {p[1] for p in pairs if p[0] == "fr"} == {p[1] for p in pairs if p[0] == "de"}
    assert pairs == domain.read_pairs([tmp_path], {"fr", "de"}, 2)


def test_training_only_other_languages_leaves_every_row_english_text_uses(tmp_path: Path) -> None:
    from memx_cli.embed import StaticEncoder, bundled_model_path

    domain = load_script("model_domain")
    vocab = domain._vocab_in_order(bundled_model_path(), 51311)
    encoder = StaticEncoder(bundled_model_path())
    english = "The deploy’s rollback — “one command” – takes 5 s… naïve café: résumé ok?"
    for token in encoder.tokenize([english])[0]:
        assert domain.frozen_row(vocab[token], "other"), vocab[token]
    for text in ("后台任务", "ログはどこ"):  # the run marker before Han characters is a zero row, never trained
        assert not any(domain.frozen_row(vocab[t], "other") for t in encoder.tokenize([text])[0] if vocab[t] != "\ue000")
    assert [vocab[t] for t in encoder.tokenize(["Straße"])[0] if not domain.frozen_row(vocab[t], "other")] == ["##raße"]
    assert domain.frozen_row("##任务", "english") and not domain.frozen_row("deploy", "english")
    assert not domain.frozen_row("deploy", "all")
