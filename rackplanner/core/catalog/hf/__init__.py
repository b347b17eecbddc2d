"""Hugging Face model configs: ``config.json`` read into an LLM part (``config``), the
attention layout of each layer (``layout``), vision towers, shipped quantization and
names (``extras``), typed reads (``values``) and fetching a config from the Hub (``hub``)."""

from rackplanner.core.catalog.hf.config import load_hf_config

__all__ = ["load_hf_config"]
