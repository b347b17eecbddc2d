"""``--hf org/name``: a model's config.json from the Hugging Face Hub cache, fetched once.

``huggingface_hub`` keeps what it downloads in its cache (``HF_HUB_CACHE``, by default
~/.cache/huggingface/hub), so a config fetched once is read from there afterwards, with no
network (and ``HF_HUB_OFFLINE=1`` forbids the network altogether).
"""

from __future__ import annotations

import re
from pathlib import Path

from rackplanner.core.catalog.hf.extras import MODELOPT_QUANT_FILE
from rackplanner.core.errors import InputError

# Hub repository ids: "org/name" of letters, digits, '-', '_' and '.'.
_REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")


def hub_config(repo_id: str, cache_dir: Path | None = None) -> Path:
    """The cached ``config.json`` of ``repo_id``, downloaded first when the cache lacks it."""
    if not _REPO_ID.match(repo_id) or ".." in repo_id:
        raise InputError(f"--hf {repo_id!r}: expected a Hub model id like Qwen/Qwen3-8B")
    import huggingface_hub
    from huggingface_hub import errors

    cached = huggingface_hub.try_to_load_from_cache(repo_id, "config.json", cache_dir=cache_dir)
    if isinstance(cached, str):
        return Path(cached)
    try:
        path = Path(huggingface_hub.hf_hub_download(repo_id, "config.json", cache_dir=cache_dir))
    except errors.GatedRepoError:
        raise InputError(
            f"--hf {repo_id}: the model is gated; log in with `hf auth login` after accepting its terms"
        ) from None
    except errors.RepositoryNotFoundError:
        raise InputError(f"--hf {repo_id}: no such model on the Hugging Face Hub") from None
    except errors.LocalEntryNotFoundError as exc:
        raise InputError(
            f"--hf {repo_id}: config.json is not in the Hub cache and the network is off ({exc})"
        ) from None
    except errors.EntryNotFoundError:
        raise InputError(f"--hf {repo_id}: the model has no config.json") from None
    except Exception as exc:  # connection failures come as the HTTP client's own errors
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(
            f"--hf {repo_id}: config.json is not in the Hub cache and could not be fetched ({reason})"
        ) from None
    _fetch_beside(repo_id, MODELOPT_QUANT_FILE, cache_dir)
    return path


def _fetch_beside(repo_id: str, filename: str, cache_dir: Path | None) -> None:
    """Fetch a file the config is read with into the same cache snapshot, if the model has
    one: only just after config.json came over the network, so a cached model stays offline."""
    import huggingface_hub

    try:
        huggingface_hub.hf_hub_download(repo_id, filename, cache_dir=cache_dir)
    except Exception:  # most models have none; the config alone is still read
        return
