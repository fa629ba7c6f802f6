import type { Locator } from 'playwright-core';

/** Just enough of the DOM for the function run in the page (the tests compile without the DOM library). */
interface PageElement {
  getAttribute(name: string): string | null;
  textContent: string | null;
  ownerDocument: { getElementById(id: string): PageElement | null };
}

/**
 * The text of what describes a control (`aria-describedby`): its hint and the error the API named its field in,
 * which the console shows next to the field.
 */
export function description(control: Locator): Promise<string> {
  return control.evaluate((node) => {
    const element = node as unknown as PageElement;
    return (element.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .filter(Boolean)
      .map((id) => element.ownerDocument.getElementById(id)?.textContent ?? '')
      .join(' ');
  });
}
