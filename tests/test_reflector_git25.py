"""Issue 24, a commit body's shell session (``commit_message.without_code_blocks``): a line
opening with a shell prompt ("$ cmd") and what it printed, up to the next blank line, is
code, no sentence of the body; prose around it, and a dollar sign inside prose, stay."""

from __future__ import annotations

from memx_cli.reflector import commit_message as msg


def test_a_shell_prompt_line_and_its_output_are_code() -> None:
    body = ("The cache kept stale wheels because the key ignored the interpreter.\n\n"
            "$ pipx install black --python 3.12\n"
            "error: the wheel was built for another interpreter, so install failed\n\n"
            "Key the cache on the interpreter's version.")
    told = msg.sentences(body)
    assert told[0].startswith("The cache kept stale wheels")
    assert told[-1] == "Key the cache on the interpreter's version."
    assert not any("pipx install" in s or "error:" in s for s in told)
    # control: the same lines without the prompt are prose of the body
    plain = msg.sentences(body.replace("$ pipx install black --python 3.12\n", ""))
    assert any(s.startswith("error: the wheel was built") for s in plain)


def test_a_dollar_sign_in_prose_is_no_prompt() -> None:
    """A dollar sign inside a line, or one before a figure, opens no shell session."""
    body = ("Fees were rounded down because the total was cast early.\n"
            "$5 fees now keep their cents, and a $ sign stays in the text.")
    told = " ".join(msg.sentences(body))
    assert "$5 fees now keep their cents" in told
    assert "Fees were rounded down" in told
