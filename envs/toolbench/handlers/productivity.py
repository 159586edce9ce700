"""Productivity handlers: calendar, mail, to-dos, notes, meeting rooms, reminders, SMS, translation,
file sharing and the on-call rota.

Every handler is ``handler(ctx, args)`` (see ``base.py``); importing this module registers them.
"""
from __future__ import annotations

import re
from typing import Any

from .base import BadInput, Ctx, Failed, as_count, as_date, handler, need_record, remove_record


def _time(value: Any, what: str) -> str:
    m = re.fullmatch(r"\s*(\d{1,2}):(\d{2})\s*", str(value))
    if not m or int(m.group(1)) > 23 or int(m.group(2)) > 59:
        raise BadInput(f"{what} must be HH:MM (24-hour), got {value!r}")
    return f"{int(m.group(1)):02d}:{m.group(2)}"


@handler("prod.events")
def list_events(ctx: Ctx, args: dict) -> Any:
    date = args.get("date")
    rows = [v for _, v in ctx.tx.items("events") if not date or v["date"] == str(date).strip()]
    rows.sort(key=lambda e: (e["date"], e["start"], e["event_id"]))
    return {"events": rows}


@handler("prod.create_event")
def create_event(ctx: Ctx, args: dict) -> Any:
    date, start, end = as_date(args["date"]), _time(args["start"], "start"), _time(args["end"], "end")
    if end <= start:
        raise BadInput(f"end ({end}) must be after start ({start})")
    for _, e in ctx.tx.items("events"):
        if e["date"] == date and start < e["end"] and e["start"] < end:
            raise Failed(f"conflicts with {e['event_id']} '{e['title']}' {e['start']}-{e['end']}")
    attendees = [a.strip() for a in str(args.get("attendees") or "").split(",") if a.strip()]
    eid = ctx.tx.next_id("EV")
    ev = {"event_id": eid, "title": str(args["title"]).strip(), "date": date, "start": start, "end": end,
          "attendees": attendees}
    ctx.tx.put("events", eid, ev)
    return ev


@handler("prod.delete_event")
def delete_event(ctx: Ctx, args: dict) -> Any:
    eid = str(args["event_id"]).strip().upper()
    remove_record(ctx, "events", eid, f"event {eid!r} not found")
    return {"event_id": eid, "deleted": True}


@handler("prod.free_slot")
def free_slot(ctx: Ctx, args: dict) -> Any:
    date = as_date(args["date"])
    minutes = as_count(args.get("duration_minutes", 60), "duration_minutes")
    busy = sorted((e["start"], e["end"]) for _, e in ctx.tx.items("events") if e["date"] == date)
    t = 9 * 60
    for s, e in busy + [("18:00", "18:00")]:
        sm = int(s[:2]) * 60 + int(s[3:])
        if sm - t >= minutes:
            return {"date": date, "start": f"{t // 60:02d}:{t % 60:02d}",
                    "end": f"{(t + minutes) // 60:02d}:{(t + minutes) % 60:02d}"}
        t = max(t, int(e[:2]) * 60 + int(e[3:]))
    raise Failed(f"no free {minutes}-minute slot between 09:00 and 18:00 on {date}")


@handler("prod.inbox")
def inbox(ctx: Ctx, args: dict) -> Any:
    return {"emails": [{k: v[k] for k in ("email_id", "from", "subject", "date")} for _, v in ctx.tx.items("inbox")]}


@handler("prod.search_email")
def search_email(ctx: Ctx, args: dict) -> Any:
    q = str(args["query"]).strip().lower()
    hits = [v for _, v in ctx.tx.items("inbox") if q in (v["subject"] + " " + v["body"] + " " + v["from"]).lower()]
    return {"count": len(hits), "emails": hits}


@handler("prod.send_email")
def send_email(ctx: Ctx, args: dict) -> Any:
    to = str(args["to"]).strip().lower()
    if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[a-z]+", to):
        raise BadInput(f"to must be an email address, got {args['to']!r}")
    mid = ctx.tx.next_id("SE")
    mail = {"message_id": mid, "to": to, "subject": str(args["subject"]).strip(), "body": str(args["body"]).strip()}
    ctx.tx.put("outbox", mid, mail)
    return {"message_id": mid, "status": "sent"}


@handler("prod.add_todo")
def add_todo(ctx: Ctx, args: dict) -> Any:
    tid = ctx.tx.next_id("TD")
    due = as_date(args["due"], "due") if args.get("due") else ""
    todo = {"todo_id": tid, "title": str(args["title"]).strip(), "due": due, "done": False}
    ctx.tx.put("todos", tid, todo)
    return todo


@handler("prod.complete_todo")
def complete_todo(ctx: Ctx, args: dict) -> Any:
    tid = str(args["todo_id"]).strip().upper()
    t = need_record(ctx, "todos", tid, f"todo {tid!r} not found")
    t["done"] = True
    ctx.tx.put("todos", tid, t)
    return t


@handler("prod.create_note")
def create_note(ctx: Ctx, args: dict) -> Any:
    nid = ctx.tx.next_id("NT")
    note = {"note_id": nid, "title": str(args["title"]).strip(), "text": str(args["text"]).strip()}
    ctx.tx.put("notes", nid, note)
    return note


@handler("prod.search_notes")
def search_notes(ctx: Ctx, args: dict) -> Any:
    q = str(args["query"]).strip().lower()
    return {"notes": [v for _, v in ctx.tx.items("notes") if q in (v["title"] + " " + v["text"]).lower()]}


@handler("prod.book_room")
def book_room(ctx: Ctx, args: dict) -> Any:
    room = ctx.fx.need("rooms", args["room_id"], "room")
    date, start, end = as_date(args["date"]), _time(args["start"], "start"), _time(args["end"], "end")
    if end <= start:
        raise BadInput(f"end ({end}) must be after start ({start})")
    for _, b in ctx.tx.items("room_bookings"):
        if b["room_id"] == room["room_id"] and b["date"] == date and start < b["end"] and b["start"] < end:
            raise Failed(f"room {room['room_id']} is taken {b['start']}-{b['end']} on {date}")
    bid = ctx.tx.next_id("RB")
    b = {"booking_id": bid, "room_id": room["room_id"], "room": room["name"], "date": date, "start": start, "end": end}
    ctx.tx.put("room_bookings", bid, b)
    return b


@handler("prod.cancel_room")
def cancel_room(ctx: Ctx, args: dict) -> Any:
    bid = str(args["booking_id"]).strip().upper()
    remove_record(ctx, "room_bookings", bid, f"room booking {bid!r} not found")
    return {"booking_id": bid, "cancelled": True}


@handler("prod.set_reminder")
def set_reminder(ctx: Ctx, args: dict) -> Any:
    rid = ctx.tx.next_id("RM")
    r = {"reminder_id": rid, "text": str(args["text"]).strip(), "date": as_date(args["date"]), "time": _time(args["time"], "time")}
    ctx.tx.put("reminders", rid, r)
    return r


@handler("prod.send_sms")
def send_sms(ctx: Ctx, args: dict) -> Any:
    phone = str(args["phone"]).strip()
    if not re.fullmatch(r"\+?[\d\- ]{7,}", phone):
        raise BadInput(f"phone must be a phone number, got {phone!r}")
    sid = ctx.tx.next_id("SMS")
    ctx.tx.put("sms", sid, {"sms_id": sid, "phone": phone, "text": str(args["text"]).strip()})
    return {"sms_id": sid, "status": "sent"}


@handler("prod.translate")
def translate(ctx: Ctx, args: dict) -> Any:
    entry = ctx.fx.need("dictionary", args["text"], "phrase")
    lang = str(args["target_language"]).strip().lower()
    if lang not in entry["translations"]:
        raise Failed(f"unsupported target language {lang!r}; use one of fr, de, es, it, ja")
    return {"text": entry["word"], "target_language": lang, "translation": entry["translations"][lang]}


@handler("prod.share_file")
def share_file(ctx: Ctx, args: dict) -> Any:
    f = ctx.fx.need("files", args["file_id"], "file")
    email = str(args["email"]).strip().lower()
    shares = ctx.tx.get("file_shares", f["file_id"], [])
    if email not in shares:
        shares.append(email)
    ctx.tx.put("file_shares", f["file_id"], shares)
    return {"file_id": f["file_id"], "shared_with": shares}


@handler("prod.on_call")
def on_call(ctx: Ctx, args: dict) -> Any:
    team = str(args["team"]).strip().lower()
    members = [c for c in ctx.fx.table("contacts") if c["team"].lower() == team]
    if not members:
        raise Failed(f"team {args['team']!r} not found")
    date = as_date(args.get("date") or ctx.fx.data["today"])
    person = members[int(date[-2:]) % len(members)]
    return {"team": person["team"], "date": date, "on_call": person["name"], "phone": person["phone"]}
