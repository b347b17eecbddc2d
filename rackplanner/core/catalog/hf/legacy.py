"""Configs written before transformers' key names settled, read under the usual keys, and the
families a decoder-only estimate cannot describe, refused by name.

Falcon (and its first releases' model types RefinedWeb / RefinedWebModel), MPT, BLOOM,
ChatGLM 2/3 and GLM-4, GPT-2, GPT-BigCode (StarCoder), GPT-J, OPT and EXAONE 3 keep their sizes
under names of their own. The rules follow each
model's transformers config class (FalconConfig, MptConfig, BloomConfig) or, for ChatGLM, its
repository's configuration_chatglm.py: the MLP width a class fills in, which of them ties the
output head to the embedding table, and how the key/value heads are counted. Each key read
under another name is said in the notes; a key the file already has is kept.
"""

from __future__ import annotations

from collections.abc import Callable

from rackplanner.core.catalog.hf.values import ConfigValues
from rackplanner.core.errors import InputError
from rackplanner.core.files import shown as shown_path

# Falcon's first checkpoints (tiiuae/falcon-7b and -40b before transformers took them in).
TYPE_ALIASES = {"RefinedWeb": "falcon", "RefinedWebModel": "falcon"}

# Model types with no attention layers at all: a pure recurrent state, which this estimate's
# layer model (attention plus an MLP, or a hybrid of both) does not describe.
_RECURRENT = frozenset({"rwkv", "rwkv5", "rwkv6", "rwkv7", "mamba", "mamba2", "falcon_mamba", "xlstm"})
_ENCODER_DECODER = frozenset(
    {"t5", "mt5", "umt5", "bart", "mbart", "pegasus", "marian", "longt5", "switch_transformers"}
)
# Encoders that embed or classify text and generate none (sentence embeddings, rerankers).
_ENCODER_ONLY = frozenset(
    {
        "bert",
        "roberta",
        "xlm-roberta",
        "camembert",
        "distilbert",
        "albert",
        "electra",
        "deberta",
        "deberta-v2",
        "mpnet",
        "modernbert",
        "nomic_bert",
    }
)


def refuse_unmodelled(values: ConfigValues, model_type: str) -> None:
    """InputError for a model this estimate does not describe, said by what it is."""
    where = shown_path(values.path)
    if model_type in _RECURRENT:
        raise InputError(
            f"{where}: model type {model_type!r} is a recurrent model with no attention layers; "
            "only transformer decoders and their attention/state-space hybrids are estimated here"
        )
    if model_type in _ENCODER_ONLY:
        raise InputError(
            f"{where}: model type {model_type!r} is an encoder (text embeddings or classification) that "
            "generates no tokens; only decoder-only language models are estimated here"
        )
    if model_type in _ENCODER_DECODER or values.flag("is_encoder_decoder"):
        raise InputError(
            f"{where}: model type {model_type!r} is an encoder-decoder model; "
            "only decoder-only language models are estimated here"
        )


def _rename(values: ConfigValues, names: dict[str, str], family: str) -> list[str]:
    read = []
    for theirs, ours in names.items():
        if values.has(theirs) and not values.has(ours):
            values.put(ours, values.integer(theirs))
            read.append(f"{values.key(theirs)} as {ours}")
    return [f"{family} config: read {', '.join(read)}"] if read else []


def _default(values: ConfigValues, key: str, value: object, why: str) -> list[str]:
    if values.has(key):
        return []
    values.put(key, value)
    shown = str(value).lower() if isinstance(value, bool) else value
    return [f"{values.key(key)} {shown} ({why})"]


def _tied(values: ConfigValues, family: str) -> list[str]:
    return _default(values, "tie_word_embeddings", True, f"{family}'s output head is its embedding table")


def _falcon(values: ConfigValues) -> list[str]:
    """FalconConfig: n_layer / n_head / n_embed are its old names; the MLP is 4 x hidden
    unless ffn_hidden_size says otherwise; the new decoder architecture (Falcon-40B/180B, and
    the RefinedWeb type) has num_kv_heads key/value heads (n_head_kv in the first release),
    the old one a single shared head when multi_query (its default) is set."""
    notes = _rename(
        values, {"n_layer": "num_hidden_layers", "n_head": "num_attention_heads", "n_embed": "hidden_size"}, "Falcon"
    )
    notes += _rename(values, {"ffn_hidden_size": "intermediate_size"}, "Falcon")
    if not values.has("intermediate_size") and values.has("hidden_size"):
        notes += _default(values, "intermediate_size", 4 * values.integer("hidden_size"), "Falcon's MLP is 4 x hidden")
    if not values.has("num_key_value_heads") and values.has("num_attention_heads"):
        heads = values.integer("num_attention_heads")
        new = values.flag("new_decoder_architecture") or values.data.get("model_type") == "RefinedWeb"
        if new:
            kv = values.opt_int("num_kv_heads", "n_head_kv") or heads
            why = "the new decoder architecture's num_kv_heads"
        elif values.flag("multi_query") is not False:
            kv, why = 1, "multi_query: one key/value head shared by all"
        else:
            kv, why = heads, "no multi_query: a key/value head per head"
        notes += _default(values, "num_key_value_heads", kv, why)
    return notes + _tied(values, "Falcon")


def _mpt(values: ConfigValues) -> list[str]:
    """MptConfig: d_model, n_heads, n_layers, max_seq_len; the MLP is expansion_ratio (4) x
    d_model; attn_config's kv_n_heads for grouped-query attention, one head for multi-query."""
    notes = _rename(
        values,
        {
            "d_model": "hidden_size",
            "n_heads": "num_attention_heads",
            "n_layers": "num_hidden_layers",
            "max_seq_len": "max_position_embeddings",
        },
        "MPT",
    )
    if not values.has("intermediate_size") and values.has("hidden_size"):
        ratio = values.ratio("expansion_ratio", below=64) or 4.0
        notes += _default(
            values,
            "intermediate_size",
            round(ratio * values.integer("hidden_size")),
            f"expansion_ratio {ratio:g} x d_model",
        )
    attn = values.obj("attn_config")
    if attn is not None and not values.has("num_key_value_heads"):
        kind = attn.string("attn_type") or "multihead_attention"
        if kind == "multiquery_attention":
            notes += _default(values, "num_key_value_heads", 1, "attn_config.attn_type multiquery_attention")
        elif kind == "grouped_query_attention" and attn.has("kv_n_heads"):
            notes += _default(values, "num_key_value_heads", attn.integer("kv_n_heads"), "attn_config.kv_n_heads")
    return notes + _tied(values, "MPT")


def _bloom(values: ConfigValues) -> list[str]:
    """BloomConfig: n_layer, n_head and n_embed are its old names; the MLP is 4 x hidden."""
    notes = _rename(
        values, {"n_layer": "num_hidden_layers", "n_head": "num_attention_heads", "n_embed": "hidden_size"}, "BLOOM"
    )
    if values.has("hidden_size"):
        notes += _default(values, "intermediate_size", 4 * values.integer("hidden_size"), "BLOOM's MLP is 4 x hidden")
    return notes + _tied(values, "BLOOM")


def _chatglm(values: ConfigValues) -> list[str]:
    """ChatGLM2/3 and GLM-4's configuration_chatglm.py: num_layers, padded_vocab_size,
    ffn_hidden_size (each half of its SwiGLU projection), kv_channels per head, seq_length,
    and multi_query_group_num key/value heads when multi_query_attention is set."""
    names = {
        "num_layers": "num_hidden_layers",
        "padded_vocab_size": "vocab_size",
        "ffn_hidden_size": "intermediate_size",
        "kv_channels": "head_dim",
        "seq_length": "max_position_embeddings",
    }
    if values.flag("multi_query_attention"):
        names["multi_query_group_num"] = "num_key_value_heads"
    notes = _rename(values, names, "ChatGLM")
    return notes + _default(values, "tie_word_embeddings", False, "ChatGLM's output layer is its own")


def _gpt2_family(family: str, tied: bool) -> Callable[[ConfigValues], list[str]]:
    """GPT2Config and the classes after it (GPTBigCodeConfig, GPTJConfig): n_layer, n_head,
    n_embd, n_positions; the MLP is n_inner wide, 4 x n_embd when it is null; GPT-BigCode's
    multi_query shares one key/value head. GPT-2 and BigCode tie the output head, GPT-J not."""

    def read(values: ConfigValues) -> list[str]:
        names = {
            "n_layer": "num_hidden_layers",
            "n_head": "num_attention_heads",
            "n_embd": "hidden_size",
            "n_inner": "intermediate_size",
            "n_positions": "max_position_embeddings",
        }
        notes = _rename(values, {k: v for k, v in names.items() if values.opt_int(k) is not None}, family)
        if not values.has("intermediate_size") and values.has("hidden_size"):
            width = 4 * values.integer("hidden_size")
            notes += _default(values, "intermediate_size", width, f"{family}'s MLP is 4 x n_embd when n_inner is null")
        if values.flag("multi_query") and not values.has("num_key_value_heads"):
            notes += _default(values, "num_key_value_heads", 1, "multi_query: one key/value head shared by all")
        if tied:
            return notes + _tied(values, family)
        return notes + _default(values, "tie_word_embeddings", False, f"{family}'s output head is its own")

    return read


def _opt(values: ConfigValues) -> list[str]:
    """OPTConfig: ffn_dim is the MLP width; the output head is the embedding table."""
    return _rename(values, {"ffn_dim": "intermediate_size"}, "OPT") + _tied(values, "OPT")


def _exaone(values: ConfigValues) -> list[str]:
    """ExaoneConfig (EXAONE 3.x): num_layers is its name for the layer count."""
    return _rename(values, {"num_layers": "num_hidden_layers"}, "EXAONE")


DIALECTS: dict[str, Callable[[ConfigValues], list[str]]] = {
    "falcon": _falcon,
    "mpt": _mpt,
    "bloom": _bloom,
    "chatglm": _chatglm,
    "gpt2": _gpt2_family("GPT-2", tied=True),
    "gpt_bigcode": _gpt2_family("GPT-BigCode", tied=True),
    "gptj": _gpt2_family("GPT-J", tied=False),
    "opt": _opt,
    "exaone": _exaone,
}
# The legacy MLPs are one up and one down projection (GELU, ReLU), with no gate.
UNGATED = frozenset({"mpt", "bloom", "gpt_bigcode", "gptj"})
