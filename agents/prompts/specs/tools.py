"""Prompt specs of the tool-use envs: ``treegym/ToolBench-v0``, ``RestBench-v0``, ``ToolTasks-v0``.

ToolBench-v0 follows ToolBench's setup (Qin et al. 2023): an AutoGPT-style
system message that says calls change the world and cannot be undone, the
task description listing the tools, then every function with its parameters
(ToolBench's OpenAI-function conversion, from ``task_fields()``); one call per
step as a JSON object or ToolBench's ReAct text, and ``Finish`` at the end
(``give_answer`` with the answer, or ``give_up_and_restart``, which DFSDT
treats as a pruned leaf). RestBench-v0 shows the API's endpoints (RestGPT's
planner sees the endpoint list); ToolTasks-v0 the domain's functions.
"""
from __future__ import annotations

from .. import register_spec
from ..spec import PromptSpec, one_line

TOOLBENCH_EXAMPLE = """Query: What's the weather in Paris on 2026-03-04?
Thought: The WeatherNow forecast function answers this directly.
Action: {"name": "forecast_for_weathernow", "arguments": {"city": "Paris", "date": "2026-03-04"}}
Observation: {"error": "", "response": "{\\"city\\": \\"Paris\\", \\"condition\\": \\"light rain\\", \\"date\\": \\"2026-03-04\\", \\"high_c\\": 11}"}
Thought: I have the forecast, so I give the answer.
Action: {"name": "Finish", "arguments": {"return_type": "give_answer", "final_answer": "Light rain in Paris on 2026-03-04, high 11 C."}}"""


def _function_lines(functions: list, max_chars: int = 220) -> list[str]:
    lines = ["Functions:"]
    for f in functions:
        params = f.get("parameters", {})
        req = params.get("required", [])
        props = params.get("properties", {})
        sig = ", ".join(f"{k}{'' if k in req else '?'}: {v.get('type', 'string')}" for k, v in props.items())
        desc = one_line(f.get("description", ""), max_chars)
        lines.append(f"- {f['name']}({sig}): {desc}")
    return lines


@register_spec("treegym/ToolBench-v0")
class ToolBenchPrompts(PromptSpec):
    per_task = frozenset({"task_fields", "action_templates", "canonical_action"})  # the env's answers depend on its task only
    task = ("You are AutoGPT, and you solve the user's query with the functions below, one function call per "
            "step. Calls act on real services: bookings, orders, transfers and messages happen as soon as you "
            "make them and are not undone. Look things up before you change anything, and call Finish at the end.")
    action_syntax = ("Action: one function call as JSON {\"name\": \"<function name>\", \"arguments\": {...}} (or "
                     "ToolBench's form 'Action: <name>' then 'Action Input: {...}').\nEnd with Finish: "
                     "{\"name\": \"Finish\", \"arguments\": {\"return_type\": \"give_answer\", \"final_answer\": \"...\"}} "
                     "with everything the user asked for, or return_type \"give_up_and_restart\" when the task "
                     "cannot be done with these functions.")
    react_example = TOOLBENCH_EXAMPLE
    value_rubric = ("Answer with one word on the last line:\nsure (the calls so far lead to a complete, correct "
                    "answer), likely, or impossible (a wrong or extra change was made, or the data cannot answer it).")
    compare_rubric = ("The better attempt answers the query completely and correctly with fewer calls, and makes no "
                      "change the user did not ask for.")
    reflect_focus = "which call was wrong or missing, and which function and arguments to use instead"
    malformed_examples = ("call the flight api", "Finish")
    observation_label = "Last function response"
    history_obs_chars = 700

    def task_lines(self, obs: dict) -> list[str]:
        fields = self.task_fields()
        lines = [f"Query: {one_line(obs.get('instruction', ''), 2000)}"]
        if fields.get("system_prompt"):
            lines.append(one_line(fields["system_prompt"].split("You have access of the following tools:")[-1], 1500))
        return lines + _function_lines(fields.get("functions", []))


@register_spec("treegym/RestBench-v0")
class RestBenchPrompts(PromptSpec):
    per_task = frozenset({"task_fields", "action_templates", "canonical_action"})  # the env's answers depend on its task only
    task = ("You answer the user's instruction by calling a REST API (RestGPT's setting), one HTTP request per "
            "step, and finish with the answer. Requests that change data (POST, PUT, DELETE) take effect at once.")
    action_syntax = ("Action: one request, e.g. GET /search/person?query=Sofia Coppola, or POST /path {JSON body}; "
                     "path parameters are filled with ids from earlier responses.\nFinish with 'Final Answer: <answer>'.")
    react_example = ("Instruction: Who directed The Silent Harbor?\nThought: I find the movie id first.\n"
                     "Action: GET /search/movie?query=The Silent Harbor\nObservation: {\"response\": {\"results\": "
                     "[{\"id\": 10007, \"title\": \"The Silent Harbor\"}]}, \"status_code\": 200}\n"
                     "Thought: The credits list the director.\nAction: GET /movie/10007/credits\n"
                     "Observation: {\"response\": {\"crew\": [{\"job\": \"Director\", \"name\": \"Dana Ito\"}]}, "
                     "\"status_code\": 200}\nThought: I have the answer.\nAction: Final Answer: Dana Ito")
    compare_rubric = "The better attempt calls the right endpoints in the right order and gives the correct answer."
    observation_label = "Last response"

    def task_lines(self, obs: dict) -> list[str]:
        fields = self.task_fields()
        return ([f"Instruction: {one_line(obs.get('instruction', ''), 2000)}", f"API: {fields.get('api', '')}",
                 "Endpoints:"] + [f"- {e}" for e in fields.get("endpoints", [])])


@register_spec("treegym/ToolTasks-v0")
class ToolTasksPrompts(PromptSpec):
    per_task = frozenset({"task_fields", "action_templates", "canonical_action"})  # the env's answers depend on its task only
    task = ("You accomplish the task by calling the functions below one at a time. Only the final state counts: "
            "when everything is set, call the finishing function (search() or done()).")
    action_syntax = ("Action: one call, e.g. set_location(\"Boston\") or put(\"cup\", \"sink\"); literal arguments "
                     "only. A call that cannot run answers 'Error: ...' and changes nothing.")
    react_example = ("Task: I want to rent a home in Austin with 2 bedrooms.\nThought: The location comes first.\n"
                     "Action: set_location(\"Austin\")\nObservation: OK: location = 'Austin'\nThought: Then rent.\n"
                     "Action: set_buy_or_rent(\"rent\")\nObservation: OK: buy_or_rent = 'rent'\n"
                     "Action: set_num_beds(2)\nObservation: OK: num_beds = 2\nAction: search()")
    compare_rubric = "The better attempt leaves the state closer to exactly what the task asks, with no extra changes."

    def task_lines(self, obs: dict) -> list[str]:
        fields = self.task_fields()
        fns = [f"- {f['name']}({', '.join(f['parameters'])}): {f['description']}" for f in fields.get("functions", [])]
        return [f"Task: {one_line(obs.get('instruction', ''), 2000)}", f"Domain: {fields.get('domain', '')}",
                "Functions:"] + fns
