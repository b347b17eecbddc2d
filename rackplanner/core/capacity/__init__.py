"""Capacity estimates: which models a machine runs and trains, how fast, how far from measurements.

- ``formats``: weight formats and their exact storage cost
- ``shape``: parameters by tensor class (on top of ``core/catalog/llm_shape.py``)
- ``hardware``: GPUs, CPU servers and SoCs as the estimates see them
- ``memory``: does it fit (weights, KV cache, activations, overhead, CPU offload)
- ``runtime``, ``speed``: decode and prefill speed, batch roofline, tensor/layer split
- ``training``: AdamW memory, activations, ZeRO/FSDP, LoRA/QLoRA, time, interruptions
- ``catalog.hf``: a Hugging Face config.json as an ``LlmModel``
- ``estimate``: everything for one model on one machine, and the catalog table
- ``calibration``: estimates against published measurements
"""
