"""The Inspect page's link: what F5 or a copied address reopens, and the uploaded tokenizer files
kept on the server for it.

    ?tokenizer=pretrained:gpt2&tab=walk&word=lowest&chunk=3&text=…&files=<sha256>,<sha256>

    parse_link(params, tabs)       -> InspectLink and one line per value ignored (never raises)
    link_params(...)               -> the parameters of the view now (defaults left out)
    put_files(files) / load_files  one imported tokenizer's uploaded files (a tokenizer.json, a
                                   vocab.json with its merges.txt, ...) as one blob in the server's
                                   bounded, sha256-keyed store (playground/corpus_store.py)
    restore_files(digests)         bring the tokenizers kept under these digests back into the
                                   session (the Inspect and Compare pages' links both call it)
    restore_chosen(pairs)          the Compare link's (imported key, digest) pairs brought back:
                                   each key's new key in this session, and the names gone

Safety: `files` and `text_ref` are used only as validated digests (corpus_store.valid_digest):
the store builds the path from the digest and nothing else; nothing from a URL becomes a path.
A stored bundle's file names are only labels handed to the readers (they pick the format by the
name's ending); they never touch the file system.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

from core.errors import PlaygroundError
from playground import corpus_store, state
from playground import inspect as ins
from playground.views import md_escape

URL_KEYS = ("tokenizer", "tab", "word", "chunk", "text", "text_ref", "files")
TAB_SLUGS = {"pipeline": "Pipeline", "walk": "Walk a word", "vocabulary": "Vocabulary",
             "files": "Export & import", "session": "Session"}
MAX_URL_TEXT = 1500
MAX_LINK_TEXT = 100_000
MAX_LINK_FILES = 8
KIND = "tokenizer-files"


@dataclass(frozen=True)
class InspectLink:
    tokenizer: Optional[str] = None
    tab: Optional[str] = None
    word: Optional[str] = None
    chunk: Optional[int] = None
    text: Optional[str] = None
    text_ref: Optional[str] = None
    files: tuple[str, ...] = ()


def _quote(value: str, n: int = 40) -> str:
    return repr(value if len(value) <= n else value[:n] + "…")


def parse_link(params: Mapping[str, str]) -> tuple[InspectLink, list[str]]:
    """parse_link({"tab": "walk", "files": "ab"}) -> (InspectLink(tab="Walk a word"), ["Ignored files=…"])."""
    out: dict = {}
    msgs: list[str] = []
    if "tokenizer" in params:
        out["tokenizer"] = str(params["tokenizer"])[:300]
    if "tab" in params:
        tab = TAB_SLUGS.get(str(params["tab"]).lower())
        if tab is None:
            msgs.append(f"Ignored tab={_quote(str(params['tab']))}: use one of {', '.join(TAB_SLUGS)}.")
        else:
            out["tab"] = tab
    if "word" in params:
        out["word"] = str(params["word"])[:200]
    if "chunk" in params:
        raw = str(params["chunk"])
        if raw.isascii() and raw.isdigit() and len(raw) < 7:   # "¹".isdigit() too, and int("¹") raises
            out["chunk"] = int(raw)
        else:
            msgs.append(f"Ignored chunk={_quote(raw)}: a chunk's number, 0 or more.")
    if "text_ref" in params:
        ref = corpus_store.valid_digest(params["text_ref"])
        if ref is None:
            msgs.append(f"Ignored text_ref={_quote(str(params['text_ref']))}: not a text reference "
                        "(64 hexadecimal digits).")
        else:
            out["text_ref"] = ref
    if "text" in params and "text_ref" not in out:
        out["text"] = str(params["text"])[:MAX_LINK_TEXT]
    if "files" in params:
        keys, bad = [], []
        for k in str(params["files"]).split(","):
            if k.strip():
                (keys if corpus_store.valid_digest(k.strip()) else bad).append(k.strip())
        if bad:
            msgs.append(f"Ignored {len(bad)} file reference{'s' if len(bad) > 1 else ''} ({_quote(bad[0])}): "
                        "not a digest (64 hexadecimal digits).")
        out["files"] = tuple(dict.fromkeys(keys))[:MAX_LINK_FILES]
    return InspectLink(**out), msgs


def link_params(tokenizer: Optional[str], tab: Optional[str], word: str, chunk: int, text: str,
                default_text: str, files: Sequence[str], text_ref: Optional[str] = None) -> dict[str, str]:
    """The parameters that reopen this view (defaults left out; a long text goes by its digest)."""
    out: dict[str, str] = {}
    if tokenizer:
        out["tokenizer"] = tokenizer
    slug = next((s for s, t in TAB_SLUGS.items() if t == tab), None)
    if slug and slug != "pipeline":
        out["tab"] = slug
    if word:
        out["word"] = word
    if chunk:
        out["chunk"] = str(chunk)
    if text_ref:
        out["text_ref"] = text_ref
    elif text != default_text and len(text) <= MAX_URL_TEXT:
        out["text"] = text
    if files:
        out["files"] = ",".join(files)
    return out


def ignored_params_message(names: Sequence[str], page: str, reads: Sequence[str], shown: int = 5,
                           length: int = 30) -> str:
    """Parameters a page does not read (Markdown, escaped), as the Compare page says it:
    ignored_params_message(["step"], "Inspect", URL_KEYS) == "Ignored the link parameter step: the Inspect page reads tokenizer, …"."""
    cut = [n if len(n) <= length else n[:length] + "…" for n in list(names)[:shown]]
    listed = ", ".join(md_escape(n) for n in cut) + (", …" if len(names) > shown else "")
    noun = "parameter" if len(names) == 1 else "parameters"
    return f"Ignored the link {noun} {listed}: the {md_escape(page)} page reads {', '.join(reads)}."


# ---------------------------------------------------------------- uploaded files, kept on the server

def bundle(files: Sequence[tuple[str, bytes]]) -> bytes:
    """Files as one blob: a JSON line of (name, length) pairs, then their bytes one after another."""
    head = json.dumps([[name, len(raw)] for name, raw in files], ensure_ascii=False).encode("utf-8")
    return head + b"\n" + b"".join(raw for _, raw in files)


def unbundle(data: bytes) -> Optional[list[tuple[str, bytes]]]:
    head, sep, body = data.partition(b"\n")
    if not sep:
        return None
    try:
        entries = json.loads(head.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    out, pos = [], 0
    if not isinstance(entries, list):
        return None
    for entry in entries:
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                and type(entry[1]) is int and entry[1] >= 0):
            return None
        out.append((entry[0], body[pos:pos + entry[1]]))
        pos += entry[1]
    return out if pos == len(body) and out else None


def put_files(files: Sequence[tuple[str, bytes]], where: Optional[corpus_store.CorpusStore] = None) -> Optional[str]:
    """Keep one tokenizer's uploaded files; returns the digest they are kept under (None: not kept,
    e.g. larger than the store takes)."""
    return (where or corpus_store.store()).put(bundle(files), {"kind": KIND})


def load_files(key: object, where: Optional[corpus_store.CorpusStore] = None) -> Optional[list[tuple[str, bytes]]]:
    """The files kept under `key`, or None (not a digest, gone, damaged, or not tokenizer files)."""
    got = (where or corpus_store.store()).get(key)
    if got is None or got[1].get("kind") != KIND:
        return None
    return unbundle(got[0])


@dataclass(frozen=True)
class Restored:
    """What restore_files did: digest -> the imported name its tokenizer has in this session (kept
    before or brought back now), the digests no longer kept, and one line per file that did not load."""
    names: dict
    gone: tuple[str, ...]
    errors: tuple[str, ...]


def restore_files(digests: Sequence[str], session=None) -> Restored:
    """Bring back, in order, the imported tokenizers whose files are kept under `digests` (already
    validated digests, e.g. parse_link's). One this session already has is not read again; a new one
    gets a free name (its file's, or with a number after it), which `names` says."""
    have = {d: n for n, d in state.get_imported_files(session).items()}
    names: dict[str, str] = {}
    gone: list[str] = []
    errors: list[str] = []
    for digest in dict.fromkeys(digests):
        if digest in have:
            names[digest] = have[digest]
            continue
        files = load_files(digest)
        if files is None:
            gone.append(digest)
            continue
        try:
            loaded = ins.read_upload_groups(files, state.get_imported(session))
        except PlaygroundError as e:
            errors.append(f"A kept tokenizer file did not load: {e}.")
            continue
        for name, tok, _ in loaded:
            state.add_imported(name, tok, session)
            state.set_imported_files(name, digest, session)
        names[digest] = loaded[0][0]
    return Restored(names, tuple(gone), tuple(errors))


def restore_chosen(pairs: Sequence[tuple[str, str]], session=None) -> tuple[dict, list[str], list[str]]:
    """The Compare link's chosen imports (compare.link_imports: "imported:NAME" and the digest its
    files are kept under) brought back into the session. Returns (renames: each key -> its key in
    this session, or None when its files are gone; the names gone; one line per file that did not
    load). A new session may give a file another name than the link's ("mine 2" comes back as "mine")."""
    restored = restore_files([digest for _, digest in pairs], session)
    renames = {key: (f"imported:{restored.names[d]}" if d in restored.names else None) for key, d in pairs
               if d in restored.names or d in restored.gone}
    gone = [key.split(":", 1)[1] for key, d in pairs if d in restored.gone]
    return renames, gone, list(restored.errors)
