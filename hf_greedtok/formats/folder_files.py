"""The files of a tokenizer folder and what makes them one tokenizer, checked without the HF
libraries. :meth:`hf_greedtok.Tokenizer.load` and :class:`~hf_greedtok.hf.folder.TokenizerFolder`
(through which every other reader opens a folder: ``AutoTokenizer``, ``FolderEncoder``, the CLI's
``encode``, ``evaluate`` and ``tokenize``) both open a folder with :func:`open_folder`, so they
accept and refuse the same folders and encode with the same mode.

A folder with ``tokenizer_config.json`` (``hf-greedtok train``, ``save_pretrained``) records its
encoder once, in the config's ``"mode"``. Saves write greedtok.json's own ``"mode"`` equal to it,
but it is not read there: folders saved by earlier versions may hold another.

tokenizer_config.json is the file users edit by hand (``model_max_length``, ``padding_side``, a
chat template), so the manifest does not guard it (:mod:`hf_greedtok.formats.manifest`); its
fields that decide the ids are checked against the other files instead, with or without a
manifest: ``"tokenizer_class"`` must be present, and a class that can read tokenizer.json; a
GreedTok folder's ``"mode"`` must be the one its files were saved for (:func:`saved_mode`). A
folder that fails is refused with the edit that undoes the change, or the command that makes a
folder of the wanted setting.
"""
from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Callable, Optional, Sequence, TypeVar

from ..errors import GreedTokFileError
from ..models import MODES
from .greedtok_json import FILE_NAME
from .manifest import MANIFEST_NAME, read_folder_manifest, verify_manifest

TOKENIZER_FILE = "tokenizer.json"
LOOKUP_FILE = "morph_lookup.tsv"
CONFIG_FILE = "tokenizer_config.json"
# tokenizer_config.json's "tokenizer_class": transformers drops the "Fast"
GREEDTOK_CLASS = "GreedTokTokenizer"
LOOKUP_CLASS = "MorphLookupTokenizer"
UNICODE_FORMS = ("NFC", "NFD", "NFKC", "NFKD")
# tokenizer.json's "version" when the file alone would encode otherwise (cover mode, a lookup:
# hf_greedtok.hf.pipeline.folder_json). tokenizers refuses a file whose "version" it does not know
# and quotes the value in its error ("Unknown tokenizer version '...'"), so this is what a user
# without hf-greedtok reads.
GUARDED_VERSION = ("hf-greedtok: this tokenizer.json alone would encode differently (GreedTok cover mode or a "
                   "morphology lookup); load its folder with hf-greedtok installed")

T = TypeVar("T")


def config_class(config: Optional[dict]) -> str:
    """tokenizer_config.json's class without "Fast"; ``GREEDTOK_CLASS`` for a ``Tokenizer.save``
    folder (``config`` None)."""
    return GREEDTOK_CLASS if config is None else str(config.get("tokenizer_class") or "").removesuffix("Fast")


def read_folder_json(path: Path, data: Optional[bytes] = None) -> dict:
    """A folder's JSON file (tokenizer.json, tokenizer_config.json), or ``data`` read from it;
    GreedTokFileError naming it when unreadable."""
    try:
        return json.loads((path.read_bytes() if data is None else data).decode("utf-8"))
    except UnicodeDecodeError as e:
        raise GreedTokFileError(path, f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise GreedTokFileError(path, f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); "
                                      "the file is truncated or corrupted") from None


def check_tokenizer_folder(folder: Path) -> tuple[Optional[dict], Optional[str], Optional[dict]]:
    """Check that ``folder`` is a complete tokenizer folder before anything parses it, and
    parse its JSON files (:func:`open_folder` then checks the rest and the manifest).

    Returns (tokenizer_config.json's content, tokenizer.json's text and content), or (None,
    None, None) for a ``Tokenizer.save`` folder (only greedtok.json, whose manifest
    :meth:`Tokenizer.load` checks).

    Raises:
        GreedTokFileError: naming the missing or damaged file; a tokenizer_config.json without
            ``"tokenizer_class"`` (not written by transformers' save_pretrained or by hf-greedtok:
            transformers would ask whether to run the folder's code).
    """
    if not folder.is_dir():
        raise GreedTokFileError(folder, "not a folder written by hf-greedtok train or save_pretrained")
    has = {name: (folder / name).is_file() for name in (FILE_NAME, TOKENIZER_FILE, CONFIG_FILE)}
    if not has[CONFIG_FILE]:
        if has[TOKENIZER_FILE]:
            # AutoTokenizer would load tokenizer.json alone as a plain tokenizer: other ids
            verify_manifest(folder)
            fix = f"restore {CONFIG_FILE}"
            if has[FILE_NAME]:
                alone = folder.with_name(folder.name + "-greedtok")
                fix += (f", or use {FILE_NAME} alone (a Tokenizer.save folder): mkdir {shlex.quote(str(alone))} && "
                        f"cp {shlex.quote(str(folder / FILE_NAME))} {shlex.quote(str(alone))}/")
            raise GreedTokFileError(folder / CONFIG_FILE, "no such file: the folder is incomplete (it has "
                                                          f"{TOKENIZER_FILE} but not {CONFIG_FILE}, which says how "
                                                          f"to read it); {fix}")
        if has[FILE_NAME]:
            return None, None, None          # Tokenizer.load checks the manifest
        raise GreedTokFileError(folder, f"not a tokenizer folder: no {CONFIG_FILE} and no {FILE_NAME}")
    config = read_folder_json(folder / CONFIG_FILE)
    if not isinstance(config, dict) or not config.get("tokenizer_class"):
        fix = class_fix(folder, "add") or "add the \"tokenizer_class\" of the tokenizer that wrote it"
        raise GreedTokFileError(folder / CONFIG_FILE, "no \"tokenizer_class\": not a folder that hf-greedtok train or "
                                                      f"save_pretrained wrote; {fix}")
    required = {GREEDTOK_CLASS: FILE_NAME, LOOKUP_CLASS: LOOKUP_FILE}
    needed = [TOKENIZER_FILE] + [f for f in (required.get(config_class(config)),) if f]
    if has[FILE_NAME]:
        needed.append(FILE_NAME)
    for name in dict.fromkeys(needed):
        if not (folder / name).is_file():
            verify_manifest(folder)     # a manifest listing the file says more than "no such file"
            raise GreedTokFileError(folder / name, f"no such file: the folder is incomplete (it has {CONFIG_FILE} "
                                                   f"but not {name})")
    text = (folder / TOKENIZER_FILE).read_bytes()
    return config, text.decode("utf-8"), read_folder_json(folder / TOKENIZER_FILE, text)


def class_fix(folder: Path, edit: str) -> Optional[str]:
    """``edit`` (the start of a sentence: "add", "set back") followed by the "tokenizer_class"
    the folder's files are read with, a GreedTok model's or a morphology lookup's; None when no
    file says (a folder of another tokenizer)."""
    for name, file in ((GREEDTOK_CLASS, FILE_NAME), (LOOKUP_CLASS, LOOKUP_FILE)):
        if (folder / file).is_file():
            return f"{edit} \"tokenizer_class\": \"{name}\" (the class of its {file})"
    return None


def is_guarded(tokenizer_json: Optional[dict]) -> bool:
    """Whether a tokenizer.json is one plain ``tokenizers`` refuses (:data:`GUARDED_VERSION`):
    only hf-greedtok's classes read it."""
    return isinstance(tokenizer_json, dict) and tokenizer_json.get("version") == GUARDED_VERSION


def open_folder(folder: Path, load: Callable[[Path], T]
                ) -> tuple[Optional[dict], Optional[str], Optional[dict], Optional[T]]:
    """Open a tokenizer folder as every reader does: :func:`check_tokenizer_folder` (files present
    and parsed), a GreedTok folder's greedtok.json parsed, the manifest verified, then whether
    the files are one tokenizer and the mode (:func:`folder_greedtok`). A damaged file is named
    by its own message, a file changed since the save by the manifest's.

    Args:
        load: reads a ranked token file (``Tokenizer.load(path, verify_folder=False)``).

    Returns:
        (config, tokenizer.json's text, its content, the GreedTok model), each None where the
        folder has none (a ``Tokenizer.save`` folder: all four, its reader checks it).

    Raises:
        GreedTokFileError: as :func:`check_tokenizer_folder`, :func:`folder_greedtok` and
            :func:`~hf_greedtok.formats.manifest.verify_manifest`; the message names the file.
    """
    config, text, content = check_tokenizer_folder(folder)
    if config is None:
        return None, None, None, None
    tok = load(folder / FILE_NAME) if config_class(config) == GREEDTOK_CLASS else None
    verify_manifest(folder)
    if is_guarded(content) and config_class(config) not in (GREEDTOK_CLASS, LOOKUP_CLASS):
        # transformers would hand the file to plain tokenizers, which refuses it with a traceback
        fix = class_fix(folder, "set back") or "set back the class that wrote it"
        raise GreedTokFileError(folder / CONFIG_FILE, f"\"tokenizer_class\" is {config['tokenizer_class']!r}, which "
                                                      f"cannot read this {TOKENIZER_FILE} (hf-greedtok's own: GreedTok "
                                                      f"cover mode or a morphology lookup); {fix}")
    if tok is not None:
        folder_greedtok(folder, config, content, tok)
    return config, text, content, tok


def check_same_vocab(vocab: list, ours: Sequence[str], source: str) -> None:
    """tokenizer.json's vocabulary (its ``model.vocab``: Unigram [piece, score] pairs) must be
    the ranked token file's (``ours``: its tokens in id order), id for id.

    Raises:
        GreedTokFileError: naming ``source`` (the folder), both files and the first id that
            differs (or the two sizes).
    """
    theirs = [piece[0] if isinstance(piece, (list, tuple)) else piece for piece in vocab]
    ours = list(ours)
    if theirs == ours:
        return
    if len(theirs) != len(ours):
        problem = f"has {len(theirs)} tokens, the ranked token file {len(ours)}"
    else:
        i = next(i for i, (a, b) in enumerate(zip(theirs, ours)) if a != b)
        problem = f"has {theirs[i]!r} at id {i}, the ranked token file {ours[i]!r}"
    raise GreedTokFileError(Path(source), f"{TOKENIZER_FILE} does not match {FILE_NAME}: its vocabulary {problem}. "
                                          "One of the two files was replaced or edited; re-save the tokenizer.")


def _unicode_forms(spec) -> list:
    """The Unicode forms (NFC, ...) a tokenizer.json normalizer applies, in order."""
    spec = spec or {}
    steps = spec.get("normalizers", []) if spec.get("type") == "Sequence" else [spec]
    return [step.get("type") for step in steps if isinstance(step, dict) and step.get("type") in UNICODE_FORMS]


def _split_patterns(spec) -> list:
    """The regex patterns of a tokenizer.json pre-tokenizer's Split steps."""
    spec = spec or {}
    steps = spec.get("pretokenizers", []) if spec.get("type") == "Sequence" else [spec]
    return [step["pattern"].get("Regex") for step in steps
            if isinstance(step, dict) and step.get("type") == "Split" and isinstance(step.get("pattern"), dict)]


def check_same_pipeline(tokenizer_json: dict, sections: dict, source: str) -> None:
    """tokenizer.json's normalizer and split must be greedtok.json's (``sections``, its parsed
    content): its Unicode form, and for a byte-level split its pattern. Otherwise the readers
    that encode with the standard file (optimal mode, plain ``tokenizers``) and those that
    encode natively would split the same text differently.

    Raises:
        GreedTokFileError: naming ``source`` (the folder), both files and what differs.
    """
    forms = _unicode_forms(tokenizer_json.get("normalizer"))
    ours = sections.get("normalizer")
    if (forms[-1] if forms else None) != ours:
        problem = f"its normalizer is {forms[-1] if forms else None}, the ranked token file's {ours}"
    else:
        pre = sections.get("pre_tokenizer") or {}
        patterns = _split_patterns(tokenizer_json.get("pre_tokenizer"))
        if pre.get("type") != "ByteLevel" or pre.get("pattern") in patterns:
            return
        problem = f"its split is {patterns[0] if patterns else None!r}, the ranked token file's {pre.get('pattern')!r}"
    raise GreedTokFileError(Path(source), f"{TOKENIZER_FILE} does not match {FILE_NAME}: {problem}. One of the two "
                                          "files was replaced or edited; re-save the tokenizer.")


def folder_mode(folder: Path, config: Optional[dict], default: str) -> str:
    """The encoder a folder records: tokenizer_config.json's ``"mode"`` (``default``, the ranked
    token file's, when the config has none or there is no config).

    Raises:
        GreedTokFileError: naming tokenizer_config.json, when its mode is not cover or optimal.
    """
    mode = (config or {}).get("mode") or default
    if mode not in MODES:
        raise GreedTokFileError(folder / CONFIG_FILE, f"\"mode\" must be 'cover' or 'optimal', got {mode!r}")
    return mode


def saved_mode(tokenizer_json: Optional[dict], ranked_mode: str) -> tuple[str, str]:
    """The mode a GreedTok folder's files were saved for, and which file says so: a standard
    tokenizer.json (not :func:`is_guarded`) encodes with optimal wherever it is read, so it was
    saved for optimal; otherwise greedtok.json's ``ranked_mode`` (a save writes the mode there
    too; a guarded tokenizer.json is cover mode or a pipeline no standard file reproduces).

    Returns:
        (mode, the reason, naming the file).
    """
    if tokenizer_json is not None and not is_guarded(tokenizer_json):
        return "optimal", f"{TOKENIZER_FILE} is a standard file, which encodes with optimal"
    return ranked_mode, f"{FILE_NAME}'s \"mode\""


def mode_fix_command(folder: Path, mode: str) -> str:
    """The shell command that saves a copy of the GreedTok folder ``folder`` (as it was saved)
    encoding with ``mode``, into ``<folder>-<mode>``."""
    # double-quoted literals (json.dumps is valid Python for a str), so the shell quoting stays plain
    code = (f"import hf_greedtok; from transformers import AutoTokenizer; AutoTokenizer.from_pretrained("
            f"{json.dumps(str(folder))}, mode={json.dumps(mode)}).save_pretrained({json.dumps(f'{folder}-{mode}')})")
    return f"python -c {shlex.quote(code)}"


def folder_greedtok(folder: Path, config: Optional[dict], tokenizer_json: Optional[dict], tok: T) -> T:
    """A GreedTok folder's model as every reader takes it: ``tok`` (its greedtok.json, loaded)
    refused when tokenizer.json's vocabulary, normalizer or split is not its own, or when the
    config's mode is not the one the files were saved for (:func:`saved_mode`; manifest or
    not); and given the folder's mode (:func:`folder_mode`).

    Args:
        tok: the :class:`hf_greedtok.Tokenizer` of the folder's greedtok.json; changed in place.

    Raises:
        GreedTokFileError: files of two tokenizers, or an unknown mode; naming the files. A
            config whose mode was edited names the config, both modes, and the edit and the
            command (:func:`mode_fix_command`) that fix it.
    """
    vocab = (tokenizer_json or {}).get("model", {}).get("vocab")
    if vocab is not None:
        model = tok.model
        check_same_vocab(vocab, [model.id_to_token(i) for i in range(model.vocab_size)], str(folder))
        check_same_pipeline(tokenizer_json, {"normalizer": tok.normalizer.form if tok.normalizer else None,
                                             "pre_tokenizer": tok.pre_tokenizer.to_dict()}, str(folder))
    saved, why = saved_mode(tokenizer_json, tok.mode)
    tok.mode = folder_mode(folder, config, tok.mode)
    if tok.mode == saved:
        return tok
    if (config or {}).get("mode"):
        # the ids of another mode than the save's; what AutoTokenizer gave before the edit is the truth
        raise GreedTokFileError(folder / CONFIG_FILE, (
            f"\"mode\" is {tok.mode!r}, but the folder was saved for {saved!r} ({why}): encoding with "
            f"{tok.mode} would not give the saved tokenizer's ids. Set \"mode\" back to \"{saved}\"; to encode "
            f"with {tok.mode}, then save a copy in that mode: {mode_fix_command(folder, tok.mode)}"))
    # no mode in the config: greedtok.json's cover beside a standard tokenizer.json (optimal)
    raise GreedTokFileError(folder, f"{TOKENIZER_FILE} does not match {FILE_NAME}: {FILE_NAME}'s mode is "
                                    f"{tok.mode}, but {TOKENIZER_FILE} is a standard file, which encodes with "
                                    "optimal. One of the two files was replaced or edited; re-save the tokenizer.")


def refuse_foreign_files(folder: Path) -> None:
    """Before ``Tokenizer.save`` writes greedtok.json into ``folder``: refuse a folder whose other
    files would then describe another tokenizer (a transformers folder: tokenizer_config.json or
    tokenizer.json), or whose manifest lists files that save does not write, or that holds any other
    file (a dataset folder, a user's notes: not a folder save wrote). Nothing is deleted.

    Raises:
        FileExistsError: naming the folder and what to do instead.
    """
    if not folder.is_dir():
        return
    theirs = [name for name in (CONFIG_FILE, TOKENIZER_FILE) if (folder / name).exists()]
    manifest = read_folder_manifest(folder)
    if manifest is not None:
        theirs += [rel for rel in manifest.files if rel != FILE_NAME and rel not in theirs]
    if theirs:
        raise FileExistsError(
            f"{folder}: holds another tokenizer's files ({', '.join(sorted(theirs))}), which would no longer "
            f"match the new {FILE_NAME}; save to a new folder, or write a whole transformers folder with "
            "GreedTokTokenizerFast.from_greedtok(tok).save_pretrained(folder) (or hf_greedtok.hf.folder."
            "save_greedtok_folder)")
    # a folder of other files (a dataset, a user's notes) is not ours to write into
    others = sorted(p.name for p in folder.iterdir() if p.name not in (FILE_NAME, MANIFEST_NAME))
    if others:
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        raise FileExistsError(f"{folder}: holds files that are not a saved tokenizer's ({shown}); save to a new "
                              "folder or an empty one")
