"""The experiment runner: evaluating an agent on tasks (:mod:`.evaluation`), resumable run files
(:mod:`.runs`), sweeps (:mod:`.sweep`), executors for threads, processes and Ray (:mod:`.executors`,
:mod:`.process_pool`) and reports (:mod:`.report`). It sits on top: it imports agents, LLMs and envs;
nothing below imports it."""
