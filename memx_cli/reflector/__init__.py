"""The Reflector (SPEC 3.1): raw developer activity → a few instructive memories, with
rules at zero LLM cost (optionally refined by an LLM).

The stages live one per module: ``rules`` (one ``Rule`` record per rule: confidence,
section, type, tag, decay), ``detector`` (PatternDetector: runs the rules), ``episodes``
(with ``attempts``, ``said`` and ``evidence``) and ``narrative`` (problem → attempts →
confirmed outcome, across turns or in one),
``knowledge`` (Preference, Convention, Decision), ``replies`` (what a user's reply
decides), ``diagnosis`` (an agent's stated cause the session bears out), ``redo`` (a
passing run the agent redoes another way), ``reports`` (the agent's report of work a
check bore out), ``scorer`` (KnowledgeScorer),
``distiller`` (BulletDistiller), ``llm`` (the optional model stage), ``history`` (recent
runs, per clone), ``inputs`` and ``transcripts`` (readers), ``commit`` and ``runs`` (what
a commit or a command run teaches). A new rule: its record in ``rules``, its detector in
``knowledge`` (stated) or ``detector`` (one turn), its vocabulary in ``lexicons``. Nothing here writes to the store:
``memx_cli.operations.reflect`` runs the stages and sends what they find to the write path;
secrets are masked by ``memx_cli.privacy``.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memx_cli.reflector.pipeline import Item, Settings


def reflect_text(text: str, settings: Settings | None = None, fmt: str = "text") -> list[Item]:
    """Rules (or the configured mode) over a string; nothing is stored."""
    from memx_cli.reflector.inputs import Reader
    from memx_cli.reflector.pipeline import Reflector, Settings

    reader = Reader(io.BytesIO(text.encode("utf-8")), fmt)
    return Reflector(settings or Settings()).reflect(reader.turns())
