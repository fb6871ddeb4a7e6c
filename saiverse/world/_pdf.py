"""PDF documents: checking uploaded bytes and reading a PDF's text, page by page (pypdf).

A PDF becomes a document item whose FILE_PATH ends in `.pdf` (upload, or an imported upstream
item); `ItemStore.read_document` gives its text, and the `pdf_read` tool reads chosen pages.
"""

from __future__ import annotations

import io
import logging
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pypdf loads with the first PDF, not at start-up
    from pypdf import PdfReader

from saiverse.errors import UserError
from words import say

PDF_MAGIC = b"%PDF-"
MIME = "application/pdf"

log = logging.getLogger(__name__)


class InvalidPdfError(UserError, ValueError):
    """Bytes or a file that cannot be read as a PDF; the message says why."""


def is_pdf(data: bytes) -> bool:
    """Whether bytes start like a PDF (judged by content, not by a file name)."""
    return data[:1024].lstrip().startswith(PDF_MAGIC)


def is_pdf_path(file_path: str | None) -> bool:
    """Whether an item's FILE_PATH names a PDF."""
    return bool(file_path) and str(file_path).lower().endswith(".pdf")


def _reader(source: bytes | Path) -> PdfReader:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(source) if isinstance(source, bytes) else source)
        if reader.is_encrypted and not reader.decrypt(""):
            raise InvalidPdfError(say("pdf_password"))
        _ = len(reader.pages)  # a broken page tree fails here, not later
    except InvalidPdfError:
        raise
    except (PdfReadError, OSError, ValueError, KeyError, TypeError) as exc:
        raise InvalidPdfError(say("pdf_broken", detail=exc)) from exc
    return reader


def check_pdf(data: bytes, *, max_bytes: int) -> int:
    """Judge uploaded bytes as a PDF (content, size, readable page tree); returns the page count."""
    if not data:
        raise InvalidPdfError(say("pdf_empty"))
    if len(data) > max_bytes:
        raise InvalidPdfError(
            f"ファイルが大きすぎます ({len(data) / 1_048_576:.1f} MB)。上限は {max_bytes / 1_048_576:.0f} MB です。")
    if not is_pdf(data):
        raise InvalidPdfError(say("pdf_not_pdf"))
    return len(_reader(data).pages)


def pdf_pages(source: bytes | Path) -> list[str]:
    """The text of every page, in order ('' for a page without a text layer, e.g. a scan)."""
    pages: list[str] = []
    for number, page in enumerate(_reader(source).pages, start=1):
        try:
            pages.append((page.extract_text() or "").strip())
        except Exception as exc:  # noqa: BLE001 - one unreadable page must not hide the others
            log.warning("PDF page %d: text extraction failed (%s)", number, exc)
            pages.append("")
    return pages


def pdf_text(source: bytes | Path) -> str:
    """The whole text of a PDF, pages separated by blank lines."""
    return "\n\n".join(p for p in pdf_pages(source) if p)
