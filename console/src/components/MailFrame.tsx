import { useMemo, useRef } from 'react';

interface Prepared {
  html: string;
  /** The style attribute of each element that had one, by its position in document order. */
  inline: [number, string][];
  /** The text of the mail's <style> elements. */
  sheets: string[];
}

const STYLE_ATTRIBUTE = 'data-mail-style';
const SHEET = 'data-mail-sheet';

/**
 * A mail's HTML split for the console's CSP (`style-src 'self'`, inherited by a srcdoc frame and by DOMParser):
 * its style attributes and <style> elements are renamed in the markup before it is parsed (so the policy never
 * sees them), taken out, and put back through the CSSOM once the frame has loaded, which the policy allows.
 */
function prepare(source: string): Prepared {
  const renamed = source
    .replace(/<[a-zA-Z][^>]*>/g, (tag) => tag.replace(/(\s)style(\s*=)/gi, `$1${STYLE_ATTRIBUTE}$2`))
    .replace(/<style\b/gi, `<template ${SHEET}`)
    .replace(/<\/style\s*>/gi, '</template>');
  const doc = new DOMParser().parseFromString(renamed, 'text/html');
  const sheets: string[] = [];
  for (const sheet of Array.from(doc.querySelectorAll<HTMLTemplateElement>(`template[${SHEET}]`))) {
    sheets.push(sheet.content.textContent ?? '');
    sheet.remove();
  }
  for (const node of Array.from(doc.querySelectorAll('script, link[rel~="stylesheet"], meta[http-equiv]'))) node.remove();
  const inline: [number, string][] = [];
  Array.from(doc.querySelectorAll('*')).forEach((element, index) => {
    const style = element.getAttribute(STYLE_ATTRIBUTE);
    if (style !== null) {
      inline.push([index, style]);
      element.removeAttribute(STYLE_ATTRIBUTE);
    }
  });
  return { html: `<!doctype html>${doc.documentElement.outerHTML}`, inline, sheets };
}

/** A mail's HTML, shown as it will look, in a frame that runs no script (sandbox without allow-scripts). */
export function MailFrame({ html, title }: { html: string; title: string }) {
  const prepared = useMemo(() => prepare(html), [html]);
  const frame = useRef<HTMLIFrameElement>(null);
  const restyle = () => {
    const doc = frame.current?.contentDocument;
    const view = frame.current?.contentWindow as (Window & typeof globalThis) | null | undefined;
    if (!doc || !view) return;
    const elements = doc.querySelectorAll<HTMLElement>('*');
    for (const [index, style] of prepared.inline) {
      const element = elements[index];
      if (element?.style) element.style.cssText = style;
    }
    try {
      const sheets = prepared.sheets.map((css) => {
        const sheet = new view.CSSStyleSheet();
        sheet.replaceSync(css);
        return sheet;
      });
      doc.adoptedStyleSheets = sheets;
    } catch {
      // A sheet the browser cannot parse: the mail shows without it.
    }
  };
  // allow-same-origin lets this page restyle the frame's document; scripts inside stay off.
  return <iframe ref={frame} className="preview-frame" title={title} sandbox="allow-same-origin" srcDoc={prepared.html} onLoad={restyle} />;
}
