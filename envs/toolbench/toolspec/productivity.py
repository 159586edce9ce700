"""The Productivity category of the mock tool catalog (see ``base.py`` for ``A``, ``P`` and the mock specs)."""
from __future__ import annotations

from typing import Any

from .base import A, D, N, P, S, TM, get, search

TOOLS: list[dict[str, Any]] = [
    {"tool_name": "Calendar", "tool_description": "Your calendar.",
     "api_list": [
         A("List Events", "Events, optionally on one date.", [], [P("date", D, "Date")], handler="prod.events"),
         A("Create Event", "Add an event; attendees as comma-separated emails.",
           [P("title", S, "Title", "Meeting"), P("date", D, "Date", "2026-03-04"), P("start", TM, "Start HH:MM", "10:00"), P("end", TM, "End HH:MM", "11:00")],
           [P("attendees", S, "Comma-separated email addresses")], method="POST", handler="prod.create_event", mutates=True),
         A("Delete Event", "Remove an event.", [P("event_id", S, "Event id", "EV-0001")], method="POST", handler="prod.delete_event", mutates=True),
         A("Find Free Slot", "First free slot of a length between 09:00 and 18:00.", [P("date", D, "Date", "2026-03-04")],
           [P("duration_minutes", N, "Length in minutes", 60)], handler="prod.free_slot"),
     ]},
    {"tool_name": "Mailbox", "tool_description": "Your email.",
     "api_list": [
         A("List Inbox", "Received emails.", handler="prod.inbox"),
         A("Read Email", "One received email.", [P("email_id", S, "Email id", "EM-0001")], handler="world.get", collection="inbox",
           param="email_id", what="email"),
         A("Send Email", "Send an email.", [P("to", S, "Recipient address", "alice@example.com"), P("subject", S, "Subject", "Hello"),
                                           P("body", S, "Text", "Hi!")], method="POST", handler="prod.send_email", mutates=True),
         A("Search Email", "Search received emails.", [P("query", S, "Words to find", "invoice")], handler="prod.search_email"),
     ]},
    {"tool_name": "Contacts", "tool_description": "Your address book.",
     "api_list": [
         A("Search Contacts", "Find contacts by name.", [P("name", S, "Part of the name", "Alice")],
           **search("contacts", {"name": ["name", "contains"]}, "contact_id")),
         A("Get Contact", "One contact.", [P("contact_id", S, "Contact id", "CT-001")], **get("contacts", "contact_id", "contact")),
     ]},
    {"tool_name": "TodoList", "tool_description": "Your to-do list.",
     "api_list": [
         A("List Todos", "All to-dos.", handler="world.list", collection="todos"),
         A("Add Todo", "Add a to-do.", [P("title", S, "What to do", "Buy milk")], [P("due", D, "Due date")], method="POST",
           handler="prod.add_todo", mutates=True),
         A("Complete Todo", "Mark a to-do done.", [P("todo_id", S, "To-do id", "TD-0001")], method="POST", handler="prod.complete_todo", mutates=True),
     ]},
    {"tool_name": "Notes", "tool_description": "Personal notes.",
     "api_list": [
         A("Create Note", "Write a note.", [P("title", S, "Title", "Ideas"), P("text", S, "Text", "...")], method="POST",
           handler="prod.create_note", mutates=True),
         A("List Notes", "All notes.", handler="world.list", collection="notes"),
         A("Search Notes", "Find notes.", [P("query", S, "Words", "ideas")], handler="prod.search_notes"),
     ]},
    {"tool_name": "MeetingRooms", "tool_description": "Office meeting rooms.",
     "api_list": [
         A("List Rooms", "Rooms with capacity.", [], [P("min_capacity", N, "Minimum seats")],
           **search("rooms", {"min_capacity": ["capacity", "gte"]}, "capacity")),
         A("Book Room", "Book a room.", [P("room_id", S, "Room id", "RM-1"), P("date", D, "Date", "2026-03-04"),
                                        P("start", TM, "Start", "10:00"), P("end", TM, "End", "11:00")], method="POST",
           handler="prod.book_room", mutates=True),
         A("Cancel Room Booking", "Cancel a room booking.", [P("booking_id", S, "Booking id", "RB-0001")], method="POST",
           handler="prod.cancel_room", mutates=True),
     ]},
    {"tool_name": "Reminders", "tool_description": "Timed reminders.",
     "api_list": [
         A("Set Reminder", "Create a reminder.", [P("text", S, "Reminder text", "Call mom"), P("date", D, "Date", "2026-03-04"),
                                                 P("time", TM, "Time", "18:00")], method="POST", handler="prod.set_reminder", mutates=True),
         A("List Reminders", "All reminders.", handler="world.list", collection="reminders"),
     ]},
    {"tool_name": "SMS Gateway", "tool_description": "Text messages.",
     "api_list": [
         A("Send SMS", "Send a text message.", [P("phone", S, "Phone number", "+1-555-0100"), P("text", S, "Message", "Hi")],
           method="POST", handler="prod.send_sms", mutates=True),
         A("List Sent SMS", "Messages sent.", handler="world.list", collection="sms"),
     ]},
    {"tool_name": "LinguaTools", "tool_description": "Phrase translation and word definitions.",
     "api_list": [
         A("Translate", "Translate a common phrase.", [P("text", S, "Phrase in English", "hello"),
                                                      P("target_language", S, "fr, de, es, it or ja", "fr")], handler="prod.translate"),
         A("Define Word", "Definition of an English word.", [P("word", S, "Word", "ephemeral")], **get("definitions", "word", "word")),
     ]},
    {"tool_name": "FileStore", "tool_description": "Cloud file storage.",
     "api_list": [
         A("List Files", "Your files.", handler="generic.list", table="files"),
         A("File Info", "One file.", [P("file_id", S, "File id", "FI-1")], **get("files", "file_id", "file")),
         A("Share File", "Share a file with an email address.", [P("file_id", S, "File id", "FI-1"), P("email", S, "Address", "bob@example.com")],
           method="POST", handler="prod.share_file", mutates=True),
     ]},
    {"tool_name": "PublicHolidays", "tool_description": "Public holidays by country.",
     "api_list": [A("Holidays", "Public holidays of a country.", [P("country", S, "Country", "France")],
                    **search("holidays", {"country": ["country", "ieq"]}, "date"))]},
    {"tool_name": "TeamDirectory", "tool_description": "Company teams and on-call rotation.",
     "api_list": [
         A("Team Members", "Members of a team.", [P("team", S, "Sales, Engineering, Design or Finance", "Sales")],
           **search("contacts", {"team": ["team", "ieq"]}, "contact_id", fields=["contact_id", "name", "email"])),
         A("Who Is On Call", "The on-call person of a team on a date.", [P("team", S, "Team", "Engineering")], [P("date", D, "Date")],
           handler="prod.on_call"),
     ]},
]
