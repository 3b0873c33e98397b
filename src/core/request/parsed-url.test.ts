import { describe, expect, it } from "vitest";
import { parsedUrl } from "./parsed-url.ts";

describe("parsedUrl", () => {
  it("parses as URL.parse does, and hands the same URL for the same text", () => {
    const text = "http://127.0.0.1:4010/api/v1/audiences/%41?page=2&x=%20";
    const url = parsedUrl(text)?.url;
    expect(url?.href).toBe(URL.parse(text)?.href);
    expect(url?.pathname).toBe("/api/v1/audiences/%41");
    expect(url?.searchParams.get("x")).toBe(" ");
    expect(parsedUrl(`${text}`)?.url).toBe(url);
    expect(parsedUrl("not a url")).toBeNull();
  });

  it("stays right past the URLs it keeps", () => {
    for (let i = 0; i < 1000; i++) expect(parsedUrl(`http://h/p/${i}?q=${i}`)?.url.search).toBe(`?q=${i}`);
    expect(parsedUrl("http://h/p/7?q=7")?.url.pathname).toBe("/p/7");
  });
});

describe("parsedUrl's path", () => {
  it("is the URL's pathname, the same string each time for the same text", () => {
    const text = "http://h/api/v1/audiences/%41?q=1";
    const path = parsedUrl(text)?.path;
    expect(path).toBe("/api/v1/audiences/%41");
    expect(parsedUrl(text)?.path).toBe(path);
    expect(parsedUrl("http://h/other")?.path).toBe("/other");
  });
});
