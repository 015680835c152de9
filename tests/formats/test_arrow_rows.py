"""Token ids as Arrow list columns (issue 32, item 3): ``Tokenizer.encode_batch_arrow`` gives a
``list<int32>`` ListArray whose rows are ``encode_batch``'s, its values buffer being the native
ids buffer itself (no copy, no Python object per token); ``datasets.map`` on Arrow batches writes
it as ``tok(batch)``'s ids would be written."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from corpora import VOCAB, corpus

from hf_greedtok import Tokenizer
from hf_greedtok.formats.arrow_rows import MAX_LIST_VALUES, list_array


@pytest.fixture(scope="module")
def cl100k() -> Tokenizer:
    return Tokenizer.from_tiktoken(VOCAB / "cl100k_base.tiktoken")


def lines(name: str, limit: int = 3000) -> list[str]:
    return corpus(name).read_text(encoding="utf-8").splitlines(keepends=True)[:limit]


@pytest.mark.parametrize("name", ["en_brown.txt", "hi_devdas.txt", "zh_reviews.txt"])
@pytest.mark.parametrize("mode", ["cover", "optimal"])
def test_the_rows_are_encode_batchs_rows(cl100k, name, mode):
    texts = lines(name) + ["", "x \ud800 y", "naïve café 東京 🙂"]
    rows = cl100k.encode_batch_arrow(texts, mode=mode, num_threads=2)
    assert rows.type == pa.list_(pa.int32())
    assert len(rows) == len(texts)
    assert rows.to_pylist() == [ids.tolist() for ids in cl100k.encode_batch(texts, mode=mode)]


def test_the_ids_buffer_is_not_copied():
    ids = np.array([5, 6, 7, 8], dtype=np.int32)
    rows = list_array(ids, np.array([0, 2, 2, 4]))
    assert rows.to_pylist() == [[5, 6], [], [7, 8]]
    assert rows.values.buffers()[1].address == ids.ctypes.data


def test_an_empty_batch_is_an_empty_column(cl100k):
    rows = cl100k.encode_batch_arrow([])
    assert len(rows) == 0 and rows.type == pa.list_(pa.int32())


def test_more_ids_than_an_arrow_list_holds_are_refused_not_wrapped():
    with pytest.raises(ValueError, match="2,147,483,648 values in one batch, more than an Arrow list"):
        list_array(np.zeros(3, np.int32), np.array([0, MAX_LIST_VALUES + 1]))
    with pytest.raises(ValueError, match="offsets end at 2 but there are 3 values"):
        list_array(np.zeros(3, np.int32), np.array([0, 2]))


def test_datasets_map_on_arrow_batches_writes_the_same_table_as_python_lists(cl100k):
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_dict({"text": lines("en_brown.txt", 2000)})
    fast = ds.with_format("arrow").map(
        lambda b: pa.table({"input_ids": cl100k.encode_batch_arrow(b["text"].to_pylist())}),
        batched=True, remove_columns=["text"]).with_format(None)
    slow = ds.map(lambda b: {"input_ids": [ids.tolist() for ids in cl100k.encode_batch(b["text"])]},
                  batched=True, remove_columns=["text"], features=fast.features)
    assert fast.features["input_ids"] == slow.features["input_ids"]
    assert fast["input_ids"] == slow["input_ids"]
