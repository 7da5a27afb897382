"""Content parts: constructors, MIME types read from real bytes, refusals that say what to do."""

from __future__ import annotations

import copy
import pathlib
import pickle

import pytest

from tests import media
from toolkit import Audio, File, Image, Resource, ResourceLink, Text, ToolkitError
from toolkit.values._content import describe, sniff


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (media.png(), "image/png"),
        (media.JPEG_HEAD, "image/jpeg"),
        (media.GIF_HEAD, "image/gif"),
        (media.WEBP_HEAD, "image/webp"),
        (media.wav(), "audio/wav"),
        (b"ID3\x04\x00\x00\x00", "audio/mpeg"),
        (b"OggS\x00\x02", "audio/ogg"),
        (b"fLaC\x00\x00", "audio/flac"),
        (media.pdf(), "application/pdf"),
        (b"plain words", None),
        (b"", None),
        (b"RIFF\x00\x00\x00\x00XXXX", None),
    ],
)
def test_sniff_reads_the_format_from_the_magic_bytes(
    data: bytes, expected: str | None
) -> None:
    assert sniff(data) == expected


def test_image_from_bytes_sniffs_png() -> None:
    data = media.png()
    image = Image.from_bytes(data)
    assert (image.data, image.url, image.mime_type) == (data, None, "image/png")


def test_image_from_bytes_refuses_what_is_not_an_image() -> None:
    with pytest.raises(
        ValueError,
        match=r"not a PNG, JPEG, GIF or WebP image \(they look like application/pdf\)\. Pass mime_type=",
    ):
        Image.from_bytes(media.pdf())
    with pytest.raises(
        ToolkitError, match=r"not a PNG, JPEG, GIF or WebP image\. Pass mime_type="
    ):
        Image.from_bytes(b"hello")


def test_image_from_bytes_takes_a_given_mime_type_as_is() -> None:
    assert Image.from_bytes(b"\x00\x01", "image/avif").mime_type == "image/avif"


def test_image_from_path_reads_the_type_from_content_then_extension(
    tmp_path: pathlib.Path,
) -> None:
    misnamed = tmp_path / "chart.jpg"
    misnamed.write_bytes(media.png())
    assert Image.from_path(misnamed).mime_type == "image/png"
    svg = tmp_path / "logo.svg"
    svg.write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    assert Image.from_path(svg).mime_type == "image/svg+xml"
    notes = tmp_path / "notes.txt"
    notes.write_text("hi")
    with pytest.raises(ValueError, match=r"notes.txt' is not an image \(text/plain\)"):
        Image.from_path(notes)


def test_image_from_url() -> None:
    assert Image.from_url("https://example.com/a.png") == Image(
        url="https://example.com/a.png", mime_type="image/png"
    )
    assert (
        Image.from_url("https://example.com/chart", "image/webp").mime_type
        == "image/webp"
    )
    with pytest.raises(ValueError, match="must be an http"):
        Image.from_url("ftp://example.com/a.png")


def test_image_needs_data_or_url_not_both() -> None:
    with pytest.raises(ValueError, match="either data"):
        Image(mime_type="image/png")
    with pytest.raises(ValueError, match="either data"):
        Image(data=b"x", url="https://example.com/a.png", mime_type="image/png")
    with pytest.raises(ValueError, match="must be bytes, got str"):
        Image(data="aGk=", mime_type="image/png")  # type: ignore[arg-type]


def test_audio_from_bytes_and_path(tmp_path: pathlib.Path) -> None:
    data = media.wav()
    assert Audio.from_bytes(data) == Audio(data=data, mime_type="audio/wav")
    path = tmp_path / "take.wav"
    path.write_bytes(data)
    assert Audio.from_path(path).mime_type == "audio/wav"
    with pytest.raises(ValueError, match="not WAV, MP3, Ogg, FLAC or M4A audio"):
        Audio.from_bytes(media.png())


def test_file_from_bytes_path_and_url(tmp_path: pathlib.Path) -> None:
    document = media.pdf()
    assert File.from_bytes(document).mime_type == "application/pdf"
    assert File.from_bytes(b"a,b\n1,2\n", name="data.csv").mime_type == "text/csv"
    assert File.from_bytes(b"just words").mime_type == "text/plain"
    assert File.from_bytes(b"\xff\xfe\x00\x81").mime_type == "application/octet-stream"
    path = tmp_path / "report.pdf"
    path.write_bytes(document)
    made = File.from_path(path)
    assert (made.data, made.mime_type, made.name) == (
        document,
        "application/pdf",
        "report.pdf",
    )
    linked = File.from_url("https://example.com/r.pdf", name="r.pdf")
    assert (linked.url, linked.mime_type, linked.data) == (
        "https://example.com/r.pdf",
        "application/pdf",
        None,
    )


def test_resource_and_link() -> None:
    text = Resource("file:///notes.md", mime_type="text/markdown", text="# Notes")
    assert (text.text, text.data) == ("# Notes", None)
    blob = Resource("file:///a.bin", data=b"\x00")
    assert blob.data == b"\x00"
    with pytest.raises(ValueError, match="either text or data"):
        Resource("file:///x")
    link = ResourceLink(
        "file:///big.csv", "big.csv", mime_type="text/csv", description="All rows"
    )
    assert (link.uri, link.name, link.mime_type, link.description) == (
        "file:///big.csv",
        "big.csv",
        "text/csv",
        "All rows",
    )


def test_parts_are_frozen_values() -> None:
    image = Image.from_bytes(media.png())
    with pytest.raises(AttributeError, match="immutable"):
        image.mime_type = "image/gif"
    assert image == Image.from_bytes(media.png())
    assert hash(image) == hash(Image.from_bytes(media.png()))
    assert pickle.loads(pickle.dumps(image)) == image
    assert copy.deepcopy(image) == image
    assert Text("a") != Text("b")
    with pytest.raises(ValueError, match="Text needs a str"):
        Text(3)  # type: ignore[arg-type]


def test_reprs_and_descriptions_never_dump_the_bytes() -> None:
    image = Image.from_bytes(media.png())
    assert (
        repr(image)
        == f"Image(data=<{len(media.png()):,} bytes>, mime_type='image/png')"
    )
    assert describe(image) == f"Image: image/png, {len(media.png()):,} bytes"
    assert describe(Text("hello")) == "Text: 5 characters"
    assert (
        describe(File.from_url("https://example.com/r.pdf"))
        == "File: application/pdf, https://example.com/r.pdf"
    )
