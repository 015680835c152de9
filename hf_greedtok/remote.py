"""URI inputs (``s3://bucket/key``, ``gs://...``): named whole in every message, checked before work.

``pathlib.Path`` and ``os.path`` collapse the ``//`` of a URI (``s3:/bucket/key``), so a URI must
never pass through them: :func:`local_path` refuses it, naming it as given, where a local file
is read; :func:`check_uri` asks pyarrow's filesystem for it, as the Ray engine's reads will, and
turns whatever pyarrow says (no such object, bucket unreachable, no S3 support in this build)
into one :class:`CorpusError` naming the URI. pyarrow is imported only there.
"""
from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Union

from .errors import CorpusError

RAY_READS_URIS = "the Ray engine (--engine ray) reads URIs through pyarrow's filesystems"


def is_uri(path: Union[str, os.PathLike]) -> bool:
    """Whether ``path`` is a URI (``scheme://...``: ``s3://``, ``gs://``...) that only a remote filesystem can read."""
    return isinstance(path, str) and "://" in path


def local_path(path: Union[str, os.PathLike]) -> Path:
    """``path`` as a local :class:`Path`.

    Raises:
        CorpusError: ``path`` is a URI (named as given; this reads local files only).
    """
    if is_uri(path):
        raise CorpusError(str(path), None, f"a URI, not a local file: this reads local files ({RAY_READS_URIS})")
    return Path(path)


def message_first_line(error: BaseException) -> str:
    """The first line of an error's message (pyarrow's run over several), or its type's name."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _from_uri(uri: str):
    """(filesystem, path inside it) of ``uri``; one place to stand in for pyarrow in tests."""
    from pyarrow import fs
    return fs.FileSystem.from_uri(uri)


def check_uri(uri: str) -> None:
    """Check that pyarrow's filesystem for ``uri`` reaches it and finds a file there (for a glob
    such as ``s3://bucket/*.txt``, only that the filesystem is reached). A scheme pyarrow has
    no filesystem for is left to Ray Data, whose fsspec filesystems may read it.

    This contacts the storage service (S3: a HeadObject request; with no network, the SDK's
    retries take about 6 s before the error).

    Raises:
        ImportError: pyarrow is not installed (``pip install 'hf-greedtok[ray]'``).
        CorpusError: naming ``uri``: this pyarrow lacks the scheme's support (e.g. built without
            S3), the service cannot be reached or refuses (first line of pyarrow's message), no
            such object, or a folder.
    """
    try:
        import pyarrow as pa
        from pyarrow import fs
    except ImportError:
        raise ImportError(f"{uri}: reading URIs needs pyarrow: pip install 'hf-greedtok[ray]'") from None
    scheme = uri.split("://", 1)[0]
    try:
        filesystem, inner = _from_uri(uri)
        if glob.has_magic(inner):
            return
        info = filesystem.get_file_info(inner)
    except pa.ArrowNotImplementedError as e:     # e.g. "Got S3 URI but Arrow compiled without S3 support"
        raise CorpusError(uri, None, f"this pyarrow cannot read {scheme}:// URIs ({message_first_line(e)})") from None
    except pa.ArrowInvalid as e:
        if "Unrecognized filesystem type" in str(e):
            return
        raise CorpusError(uri, None, f"not a URI pyarrow can read ({message_first_line(e)})") from None
    except (OSError, pa.ArrowException) as e:
        raise CorpusError(uri, None, f"cannot be read ({message_first_line(e)})") from None
    if info.type == fs.FileType.NotFound:
        raise CorpusError(uri, None, "no such file")
    if info.type == fs.FileType.Directory:
        raise CorpusError(uri, None, "is a folder, not a file (give the files, or a glob such as .../*.txt)")
