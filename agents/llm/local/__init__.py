"""The embedded offline LLM (``--llm local``): llama.cpp's OpenAI-compatible server as a child process.

* ``llm.py`` - :class:`LocalLLM` and ``make_local_llm``, the backend ``make_llm("local")`` builds;
* ``server.py`` - :class:`LocalLLMServer`, which starts, watches and stops the child process;
* ``child.py`` - the program the child process runs (by its file path: it imports nothing of treegym);
* ``model.py`` - which GGUF model is served and its context window; ``gguf.py`` reads a GGUF file's metadata;
* ``runtime.py`` - which llama.cpp runtime serves it (xllamacpp or llama-cpp-python) and whether it is installed.
"""
