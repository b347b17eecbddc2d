"""The parts catalog: part models, loading and validation, users' own parts, imports.

- ``parts``: pydantic models of every part kind (GPU, CPU, board, server, PDU, LLM...)
- ``loading``: the built-in catalog plus users' folders, merged by id (``load_catalog``)
- ``parsecache``: the built-in YAML kept parsed, keyed by content
- ``figures``: the few figures people choose a part by
- ``llm_shape``: parameter counts and KV size recomputed from an LLM's architecture
- ``hf``: Hugging Face ``config.json`` files read into LLM parts
- ``netbox``: NetBox device types imported as rack parts and exported back
"""

from rackplanner.core.catalog.loading import Catalog, CatalogError, load_catalog, user_catalog_dir
from rackplanner.core.catalog.parts import PART_KINDS, Part

__all__ = ["PART_KINDS", "Catalog", "CatalogError", "Part", "load_catalog", "user_catalog_dir"]
