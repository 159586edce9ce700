"""ToolBench mock services: ToolBench's schema conversion, the service's answers, the world state."""
from __future__ import annotations

import json

import pytest

from treegym.envs.toolbench.schema import (FINISH_FUNCTION, api_to_openai_function, change_name, standardize,
                                           strict_function)
from treegym.envs.toolbench.service import default_service, standard_category


def test_standardize_and_change_name_follow_toolbench():
    assert standardize("Get  Flight--Info!") == "get_flight_info"
    assert standardize("__Top 10 Songs__") == "top_10_songs"
    assert standardize("3D Models") == "get_3d_models"
    assert change_name("from") == "is_from" and change_name("id") == "is_id" and change_name("type") == "type"
    assert standard_category("Business, Software/Tools") == "Business_Software_Tools"


def test_openai_function_conversion_matches_toolbench_rules():
    api = {"api_name": "Search Flights", "api_description": "Search Flights between airports.",
           "required_parameters": [{"name": "origin", "type": "STRING", "description": "From", "default": "CDG"},
                                   {"name": "max stops", "type": "NUMBER", "description": "d" * 300, "default": ""}],
           "optional_parameters": [{"name": "cabin", "type": "ENUM", "description": "Cabin", "default": ""},
                                   {"name": "direct", "type": "BOOLEAN", "description": "Only direct", "default": True}]}
    f = api_to_openai_function(api, "skyroutes")
    assert f["name"] == "search_flights_for_skyroutes"
    # the raw API name in the description is replaced by the function name, as upstream does
    assert f["description"] == ('This is the subfunction for tool "skyroutes", you can use this tool.The description of '
                                'this function is: "search_flights_for_skyroutes between airports."')
    props = f["parameters"]["properties"]
    assert props["origin"] == {"type": "string", "description": "From", "example_value": "CDG"}
    assert props["max_stops"]["type"] == "integer" and len(props["max_stops"]["description"]) == 256
    assert "example_value" not in props["max_stops"]
    assert props["cabin"]["type"] == "string" and props["direct"]["type"] == "boolean"
    assert f["parameters"]["required"] == ["origin", "max_stops"] and f["parameters"]["optional"] == ["cabin", "direct"]
    long = api_to_openai_function({"api_name": "x" * 80, "api_description": ""}, "tool")
    assert len(long["name"]) == 64 and long["name"].endswith("_for_tool")
    # upstream lists optional parameters only when the API has a required one
    only_opt = api_to_openai_function({"api_name": "a", "api_description": "", "required_parameters": [],
                                       "optional_parameters": api["optional_parameters"]}, "t")
    assert only_opt["parameters"]["properties"] == {}
    strict = strict_function(f)
    assert "optional" not in strict["parameters"] and "example_value" not in strict["parameters"]["properties"]["origin"]
    assert FINISH_FUNCTION["parameters"]["properties"]["return_type"]["enum"] == ["give_answer", "give_up_and_restart"]


def test_shipped_catalog_size_and_format():
    svc = default_service()
    apis = list(svc.all_apis())
    assert len(apis) >= 145 and len({a.standard_tool for a in apis}) >= 60
    assert len({a.category for a in apis}) >= 5
    assert sum(a.mutates for a in apis) >= 30
    for cat, tools in svc.tools.items():
        for std, tool in tools.items():
            assert {"tool_name", "tool_description", "title", "standardized_name", "api_list"} <= set(tool)
            for api in tool["api_list"]:
                assert {"name", "url", "description", "method", "required_parameters", "optional_parameters",
                        "template_response", "x-mock"} <= set(api)
                for p in api["required_parameters"] + api["optional_parameters"]:
                    assert set(p) == {"name", "type", "description", "default"}


def _call(world, tool, api, args, category="Travel"):
    return default_service().call(world, category, tool, api, args)


def test_service_answers_errors_like_toolbench_and_never_changes_state_on_error():
    svc = default_service()
    w0 = svc.initial_world
    w, r = _call(w0, "skyroutes", "book_flight", {"flight_id": "FL-1001"})
    assert w is w0 and r["response"] == ""
    assert r["error"] == ("Function executing from my_tools.Travel.skyroutes.api import book_flight error...\n"
                          "book_flight() missing 1 required positional argument: 'passengers'")
    w, r = _call(w0, "skyroutes", "book_flight", {"flight_id": "FL-1001", "passengers": 1, "seat": "12A"})
    assert w is w0 and r["error"].endswith("book_flight() got an unexpected keyword argument 'seat'")
    w, r = _call(w0, "skyroutes", "book_flight", '{"flight_id": "FL-1001", passengers: 1}')
    assert w is w0 and r == {"error": "Tool input parse error...\n", "response": ""}
    w, r = _call(w0, "skyroutes", "book_flight", {"flight_id": "FL-1001", "passengers": "two"})
    assert w is w0 and "argument 'passengers' must be a number" in r["error"]
    w, r = _call(w0, "skyroutes", "fly_to_moon", {})
    assert w is w0 and r["error"] == "API not working error..."
    # business failures are normal answers with a failed status
    sold_out = next(f for f in svc.fixtures.table("flights") if f["seats"] == 0)
    w, r = _call(w0, "skyroutes", "book_flight", {"flight_id": sold_out["flight_id"], "passengers": 1})
    assert w is w0 and r["error"] == "" and json.loads(r["response"])["status"] == "failed"
    assert "sold out" in json.loads(r["response"])["reason"]
    pricey = next(f for f in svc.fixtures.table("flights") if f["seats"] >= 20 and f["price"] * 20 > 2500)
    w, r = _call(w0, "skyroutes", "book_flight", {"flight_id": pricey["flight_id"], "passengers": 20})
    assert w is w0 and "insufficient funds" in json.loads(r["response"])["reason"]


def test_stateful_booking_cancel_and_immutability():
    svc = default_service()
    w0 = svc.initial_world
    f = next(f for f in svc.fixtures.table("flights") if f["seats"] >= 4 and f["price"] < 400)
    before = w0.digest()
    w1, r = _call(w0, "SkyRoutes", "Book Flight", {"flight_id": f["flight_id"], "passengers": 2})
    b = json.loads(r["response"])
    assert b["booking_id"] == "BK-0001" and b["total_price"] == round(f["price"] * 2, 2)
    assert w0.digest() == before, "a call must never mutate the state it started from"
    assert w1.get("wallet", "balance") == round(2500 - f["price"] * 2, 2)
    _, r = _call(w1, "skyroutes", "get_flight", {"flight_id": f["flight_id"]})
    assert json.loads(r["response"])["seats"] == f["seats"] - 2
    w2, r = _call(w1, "skyroutes", "cancel_flight_booking", {"booking_id": "bk-0001"})
    assert json.loads(r["response"])["status"] == "cancelled"
    assert w2.get("wallet", "balance") == 2500.0 and w2.get("flight_seats", f["flight_id"]) == f["seats"]
    _, r = _call(w2, "skyroutes", "cancel_flight_booking", {"booking_id": "BK-0001"})
    assert "already cancelled" in json.loads(r["response"])["reason"]
    # same calls from the same state give the same bytes (ids come from counters, no clock)
    assert _call(w0, "skyroutes", "book_flight", {"flight_id": f["flight_id"], "passengers": 2})[1]["response"] == \
        json.dumps(dict(b), ensure_ascii=False)


@pytest.mark.parametrize("category,tool,api,args,key", [
    ("Commerce", "shopcart", "add_to_cart", {"sku": "SKU-0001", "quantity": 1}, "subtotal"),
    ("Finance", "brokerage", "buy_stock", {"symbol": "ACME", "shares": 1}, "cash"),
    ("Productivity", "calendar", "create_event", {"title": "x", "date": "2026-03-05", "start": "10:00", "end": "11:00"}, "event_id"),
    ("Productivity", "mailbox", "send_email", {"to": "a@example.com", "subject": "s", "body": "b"}, "message_id"),
    ("Media", "playlists", "create_playlist", {"name": "New"}, "playlist_id"),
])
def test_mutating_apis_of_every_category_change_only_the_new_state(category, tool, api, args, key):
    svc = default_service()
    w0 = svc.initial_world
    w1, r = svc.call(w0, category, tool, api, args)
    assert r["error"] == "" and key in json.loads(r["response"])
    assert w1 is not w0 and w1.digest() != w0.digest() and w0.digest() == svc.initial_world.digest()
