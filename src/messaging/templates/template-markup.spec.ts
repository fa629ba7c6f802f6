import { checkMarkup, htmlToText, MarkupError } from './template-markup';

/** The markup check of a template save and the text part derived from HTML (src/messaging/templates/template-markup.ts). */
describe('template markup', () => {
  it.each([
    '<p>Hello [firstname]</p>',
    '<p>one<p>two',
    '<ul><li>a<li>b</ul>',
    '<table><thead><tr><th>A<th>B<tbody><tr><td>1<td>2</table>',
    '<br><img src="[url]" alt=\'a > b\'><hr/>',
    '<!doctype html><html><head><style>p > b { color: red }</style></head><body><p>x</p></body></html>',
    '<!-- <div> in a comment --><p>a < b and b > a</p>',
    '<script>if (a < b) { document.write("</p>") }</script>',
    '<a href=/plain>unquoted</a>',
    'Plain text without markup',
  ])('accepts %s', (html) => {
    expect(() => checkMarkup(html)).not.toThrow();
  });

  it.each([
    ['<div>never closed', /<div> is never closed \(line 1\)/],
    ['<p>\n<strong>crossed</p></strong>', /<\/p> comes before <strong> \(opened on line 2\) is closed \(line 2\)/],
    ['<p>stray</span></p>', /<\/span> closes an element that is not open/],
    ['<p class="open>x</p>', /unclosed quote|never closed/],
    ['<p>x</p><!-- open', /Comment <!-- is never closed/],
    ['<table><tr><td>x</tr>', /<table> is never closed/],
    ['<b>bold <i>both</b></i>', /<\/b> comes before <i>/],
    ['<p>x</p\n<p>y</p>', /never closed with >/],
    ['<style>p { }', /<style> is never closed/],
  ])('refuses %s', (html, message) => {
    expect(() => checkMarkup(html)).toThrow(MarkupError);
    expect(() => checkMarkup(html)).toThrow(message);
  });

  it('derives the text part: block and line breaks, cells, links, entities; no head, style or script', () => {
    const html =
      '<html><head><title>T</title><style>p{}</style></head><body><h1>Order&nbsp;#7</h1><p>Dear Ann &amp; Bo,<br>thanks.</p>' +
      '<table><tr><td>Book</td><td>$25.00</td></tr></table><p><a href="https://x.example.test/q">Your QR code</a> · ' +
      '<a href="https://x.example.test">https://x.example.test</a></p><script>alert(1)</script></body></html>';
    expect(htmlToText(html)).toBe(
      'Order #7\n\nDear Ann & Bo,\nthanks.\n\nBook\t$25.00\n\nYour QR code (https://x.example.test/q) · https://x.example.test',
    );
  });
});
