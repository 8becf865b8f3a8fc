#!/usr/bin/env python3
"""Long-lived UNO bridge between Node and one warm LibreOffice (soffice) instance.

Started by the LibreOffice pool of @collab-suite/preview-core, one helper per soffice instance.
It needs the `uno` module (Debian: python3-uno), so run it with the system python (/usr/bin/python3,
or PYENV_VERSION=system under pyenv).

Protocol: one JSON object per line on stdin, one JSON object per line on stdout.
  helper -> node, once:   {"type": "ready"}  or  {"type": "fatal", "error": "..."} (then exit 2)
  node -> helper:         {"id": 1, "op": "convert", "input": "/abs/in.docx", "output": "/abs/out.pdf",
                           "inputFilter": "MS Word 2007 XML", "exportFilter": "writer_pdf_Export",
                           "locale": "de-DE" | null, "pageRange": "1" | "2-5" | null,
                           "firstPage": 2 | null, "lastPage": 5 | null, "countPages": false}
                          {"id": 2, "op": "ping"}
  helper -> node:         {"id": 1, "ok": true, "detected": false, "pageCount": 12 | absent,
                           "exported": true}   (countPages: pages of the whole document; exported is
                           false when firstPage is past the end and nothing was written)
                          {"id": 1, "ok": false, "kind": "load" | "export" | "bridge" | "request",
                           "error": "..."}
A "bridge" failure means soffice went away; the helper exits with status 3 right after answering.
With `--soffice-group <pgid>` the helper kills that process group when its stdin closes, when it is
asked to stop (SIGTERM, SIGINT, SIGHUP) and when its parent goes away (checked every half second, even
while a conversion hangs), so soffice never outlives the Node process that started both.
Diagnostics go to stderr only.
"""

import json
import os
import signal
import sys
import threading
import time


def emit(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


try:
    import uno
    from com.sun.star.beans import PropertyValue
    from com.sun.star.connection import NoConnectException
    from com.sun.star.lang import DisposedException
    from com.sun.star.uno import RuntimeException
except ImportError as import_error:  # python without python3-uno
    emit({"type": "fatal", "error": "cannot import the uno module (%s) with %s; install python3-uno "
          "and run the helper with the system python" % (import_error, sys.executable)})
    sys.exit(2)

NEVER_EXECUTE_MACROS = 0
NO_LINK_UPDATES = 0
WRITER_SERVICES = ("com.sun.star.text.TextDocument", "com.sun.star.text.GlobalDocument",
                   "com.sun.star.text.WebDocument")


class CommentsKept(Exception):
    """A Writer document kept comments that could not be removed: showing it would crash soffice."""


def properties(**values):
    result = []
    for name, value in values.items():
        item = PropertyValue()
        item.Name = name
        item.Value = value
        result.append(item)
    return tuple(result)


def connect(connection, timeout_seconds):
    local_context = uno.getComponentContext()
    resolver = local_context.ServiceManager.createInstanceWithContext(
        "com.sun.star.bridge.UnoUrlResolver", local_context)
    deadline = time.monotonic() + timeout_seconds
    while True:
        try:
            return resolver.resolve("uno:%s;urp;StarOffice.ComponentContext" % connection)
        except NoConnectException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


class Converter:
    def __init__(self, context):
        self.context = context
        self.desktop = context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
        self.current_locale = None
        self.harden()

    def configure(self, node, **values):
        provider = self.context.ServiceManager.createInstanceWithContext(
            "com.sun.star.configuration.ConfigurationProvider", self.context)
        access = provider.createInstanceWithArguments(
            "com.sun.star.configuration.ConfigurationUpdateAccess", properties(nodepath=node))
        for name, value in values.items():
            access.setPropertyValue(name, value)
        access.commitChanges()

    def harden(self):
        """Documents are untrusted: no macros, and no linked content (images, sections, OLE links)
        loaded from URLs or local files while converting, so a document cannot make this host fetch
        anything or read its files into the PDF."""
        self.configure("/org.openoffice.Office.Common/Security/Scripting",
                       BlockUntrustedRefererLinks=True, DisableMacrosExecution=True, MacroSecurityLevel=3)

    def set_locale(self, locale):
        """Sets the locale LibreOffice formats numbers and dates with (Tools > Options > Language)."""
        if locale is None or locale == self.current_locale:
            return
        self.configure("/org.openoffice.Setup/L10N", ooSetupSystemLocale=locale)
        self.current_locale = locale

    def load(self, path, filter_name):
        """Opens a document hidden and inert. A Writer document is loaded as a model first, its comments
        removed, then shown in a hidden frame (see `load_text`); other documents are loaded at once.
        OnMainThread makes soffice build the view on its main thread, as `soffice --convert-to` does."""
        if filter_name is None:
            filter_name = self.detect_filter(path)
        service = self.document_service(filter_name)
        if service in WRITER_SERVICES:
            return self.load_text(path, filter_name, service)
        values = dict(Hidden=True, ReadOnly=True, OnMainThread=True, MacroExecutionMode=NEVER_EXECUTE_MACROS,
                      UpdateDocMode=NO_LINK_UPDATES)
        if filter_name:
            values["FilterName"] = filter_name
        return self.desktop.loadComponentFromURL(uno.systemPathToFileUrl(path), "_blank", 0,
                                                 properties(**values))

    def load_text(self, path, filter_name, service):
        """Writer lays out comment windows in an event it posts when it creates a view of a commented
        document; built from modules/swriter/ui/annotation.ui, which the -nogui packages do not ship,
        the event throws and soffice aborts (exit 134). `soffice --convert-to` exports and closes the
        document before its main loop runs that event; a warm soffice returns to its loop after the
        load. So the document is loaded without a view, its comments removed (they are not exported
        to the PDF anyway), and only then shown in a hidden frame."""
        model = self.context.ServiceManager.createInstanceWithContext(service, self.context)
        try:
            model.load(properties(URL=uno.systemPathToFileUrl(path), FilterName=filter_name, ReadOnly=True,
                                  MacroExecutionMode=NEVER_EXECUTE_MACROS, UpdateDocMode=NO_LINK_UPDATES))
            left = remove_comments(model)
            if left:
                raise CommentsKept("%d comment(s) of the document could not be removed before showing it" % left)
            return self.desktop.loadComponentFromURL("private:object", "_blank", 0,
                                                     properties(Model=model, Hidden=True, OnMainThread=True))
        except BaseException:
            close_quietly(model)
            raise

    def detect_filter(self, path):
        """The import filter LibreOffice's deep type detection picks for the file, or None."""
        detection = self.context.ServiceManager.createInstanceWithContext(
            "com.sun.star.document.TypeDetection", self.context)
        type_name, descriptor = detection.queryTypeByDescriptor(
            properties(URL=uno.systemPathToFileUrl(path)), True)
        if not type_name:
            return None
        chosen = dict((item.Name, item.Value) for item in descriptor).get("FilterName")
        if chosen:
            return chosen
        return dict((item.Name, item.Value) for item in detection.getByName(type_name)).get("PreferredFilter")

    def document_service(self, filter_name):
        """The document service (com.sun.star.text.TextDocument, ...) an import filter creates."""
        if not filter_name:
            return None
        filters = self.context.ServiceManager.createInstanceWithContext(
            "com.sun.star.document.FilterFactory", self.context)
        if not filters.hasByName(filter_name):
            return None
        return dict((item.Name, item.Value) for item in filters.getByName(filter_name)).get("DocumentService")

    def open(self, request):
        """Opens with the import filter the content was recognised as; when that filter refuses the
        document (a Word 6/95 file is an OLE2 `doc` too, a template or an older version), lets
        LibreOffice detect the format among the filters of the same container. Returns the document
        and whether detection was needed, or an error answer."""
        failure = "LibreOffice returned no document"
        try:
            document = self.load(request["input"], request["inputFilter"])
            if document is not None:
                return document, False, None
        except (DisposedException, RuntimeException):
            raise
        except Exception as error:  # IllegalArgumentException, IOException: the document itself
            failure = describe(error)
        try:
            document = self.load(request["input"], None)
        except (DisposedException, RuntimeException):
            raise
        except Exception as error:
            return None, True, {"ok": False, "kind": "load", "error": "%s; detected: %s" % (failure, describe(error))}
        if document is None:
            return None, True, {"ok": False, "kind": "load", "error": failure}
        return document, True, None

    def convert(self, request):
        self.set_locale(request.get("locale"))
        document, detected, failure = self.open(request)
        if failure is not None:
            return failure
        try:
            answer = {"ok": True, "detected": detected}
            page_range = request.get("pageRange")
            if request.get("countPages"):
                count = count_pages(document)
                answer["pageCount"] = count
                first, last = request.get("firstPage") or 1, request.get("lastPage") or count
                if count is not None and first > count:
                    answer["exported"] = False
                    return answer
                if count is not None:
                    page_range = "%d-%d" % (first, min(last, count))
            export_filter = request["exportFilter"]
            if detected:
                export_filter = export_filter_of(document, export_filter)
            store = properties(FilterName=export_filter)
            if page_range:
                filter_data = uno.Any("[]com.sun.star.beans.PropertyValue", properties(PageRange=page_range))
                store = store + properties(FilterData=filter_data)
            uno.invoke(document, "storeToURL", (uno.systemPathToFileUrl(request["output"]),
                                                uno.Any("[]com.sun.star.beans.PropertyValue", store)))
        except (DisposedException, RuntimeException):
            raise
        except Exception as error:
            return {"ok": False, "kind": "export", "error": describe(error)}
        finally:
            close_quietly(document)
        return answer


def export_filter_of(document, requested):
    """The PDF export filter of the application that opened a detected document: a file recognised as
    one type (its first import filter) can turn out to be another (a damaged spreadsheet whose stream
    names say nothing, opened by Calc); the requested filter when the document is none of the three."""
    if document.supportsService("com.sun.star.sheet.SpreadsheetDocument"):
        return "calc_pdf_Export"
    if document.supportsService("com.sun.star.presentation.PresentationDocument"):
        return "impress_pdf_Export"
    if document.supportsService("com.sun.star.text.TextDocument"):
        return "writer_pdf_Export"
    return requested


def remove_comments(model):
    """Removes every comment (annotation field) of a Writer model, with change tracking off so that the
    removal is not recorded as a tracked deletion that keeps the comment; returns how many are left."""
    info = model.getPropertySetInfo()
    if info.hasPropertyByName("RecordChanges"):
        model.setPropertyValue("RecordChanges", False)
    for field in annotations(model):
        try:
            field.getAnchor().getText().removeTextContent(field)
        except Exception:  # NoSuchElementException, a comment in a part that refuses the removal
            field.dispose()
    return len(annotations(model))


def annotations(model):
    result = []
    fields = model.getTextFields().createEnumeration()
    while fields.hasMoreElements():
        field = fields.nextElement()
        if field.supportsService("com.sun.star.text.textfield.Annotation"):
            result.append(field)
    return result


def count_pages(document):
    """Pages of a presentation (its slides), of a text document (its layout, which the PDF export
    follows) or of a spreadsheet (its printed pages: the PDF export asks XRenderable for the same
    count of the whole document, with empty pages left out as printing does); None for others."""
    if document.supportsService("com.sun.star.presentation.PresentationDocument"):
        return document.getDrawPages().getCount()
    if document.supportsService("com.sun.star.text.TextDocument"):
        cursor = document.getCurrentController().getViewCursor()
        cursor.jumpToLastPage()
        return cursor.getPage()
    if document.supportsService("com.sun.star.sheet.SpreadsheetDocument"):
        return document.getRendererCount(document, ())
    return None


def describe(error):
    message = getattr(error, "Message", "") or str(error)
    return "%s: %s" % (type(error).__name__, message.strip() or "no message")


def close_quietly(document):
    try:
        document.close(True)
    except Exception:
        try:
            document.dispose()
        except Exception:
            pass


def serve(converter):
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            request_id = request["id"]
        except (ValueError, KeyError, TypeError) as error:
            emit({"id": None, "ok": False, "kind": "request", "error": "bad request line: %s" % error})
            continue
        try:
            if request.get("op") == "ping":
                converter.desktop.getCurrentComponent()
                answer = {"ok": True}
            elif request.get("op") == "convert":
                answer = converter.convert(request)
            else:
                answer = {"ok": False, "kind": "request", "error": "unknown op %r" % request.get("op")}
        except (DisposedException, RuntimeException) as error:
            emit({"id": request_id, "ok": False, "kind": "bridge", "error": describe(error)})
            sys.exit(3)
        except KeyError as error:
            answer = {"ok": False, "kind": "request", "error": "missing field %s" % error}
        answer["id"] = request_id
        emit(answer)


def guard_soffice(group):
    """Kills the soffice group and exits on a stop signal or when the parent (Node) is gone."""
    if not group:
        return
    parent = os.getppid()

    def stop(*_):
        stop_group(group)
        os._exit(4)

    for name in ("SIGTERM", "SIGINT", "SIGHUP"):
        signal.signal(getattr(signal, name), stop)

    def watch():
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                stop()

    threading.Thread(target=watch, daemon=True).start()


def main():
    arguments = dict(zip(sys.argv[1::2], sys.argv[2::2]))
    guard_soffice(arguments.get("--soffice-group"))
    connection = arguments.get("--connect")
    if not connection:
        emit({"type": "fatal", "error": "usage: convert-server.py --connect <uno connection> [--timeout s] [--soffice-group pgid]"})
        sys.exit(2)
    try:
        context = connect(connection, float(arguments.get("--timeout", "60")))
        converter = Converter(context)
    except Exception as error:
        emit({"type": "fatal", "error": "cannot connect to soffice at %s: %s" % (connection, describe(error))})
        sys.exit(2)
    emit({"type": "ready"})
    serve(converter)
    stop_group(arguments.get("--soffice-group"))


def stop_group(group):
    """Called when stdin closes (Node went away): soffice must not outlive it."""
    if not group:
        return
    try:
        os.killpg(int(group), signal.SIGKILL)
    except (ProcessLookupError, PermissionError, ValueError):
        pass


if __name__ == "__main__":
    main()
