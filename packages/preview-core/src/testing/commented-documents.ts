import { makeZip } from './container-samples.js';

/** What {@link makeCommentedDocx} and {@link makeCommentedOdt} write. */
export interface CommentedDocumentSpec {
  /** Body paragraphs; the comment is anchored in the first one. */
  readonly paragraphs: readonly string[];
  /** Text of the one comment (a Word comment, an ODF annotation). */
  readonly comment: string;
  /**
   * Whether the document asks for its changes to be tracked (`w:trackRevisions`,
   * `text:track-changes`), as documents under review do.
   * @default false
   */
  readonly trackChanges?: boolean;
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const RELATIONSHIPS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const OFFICE_RELATIONSHIPS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const WORD_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml';

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function wordParagraph(text: string, commented: boolean): string {
  const run = `<w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r>`;
  if (!commented) return `<w:p>${run}</w:p>`;
  return (
    `<w:p><w:commentRangeStart w:id="0"/>${run}<w:commentRangeEnd w:id="0"/>` +
    '<w:r><w:commentReference w:id="0"/></w:r></w:p>'
  );
}

/**
 * A Word 2007 document whose first paragraph carries one comment (`word/comments.xml`), the
 * structure that makes Writer lay out a comment window when it shows the document.
 */
export function makeCommentedDocx(spec: CommentedDocumentSpec): Uint8Array {
  const body = spec.paragraphs.map((text, index) => wordParagraph(text, index === 0)).join('');
  const relationships = [
    `<Relationship Id="rIdComments" Type="${OFFICE_RELATIONSHIPS}/comments" Target="comments.xml"/>`,
    `<Relationship Id="rIdSettings" Type="${OFFICE_RELATIONSHIPS}/settings" Target="settings.xml"/>`,
  ].join('');
  return makeZip([
    {
      name: '[Content_Types].xml',
      data:
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        `<Override PartName="/word/document.xml" ContentType="${WORD_TYPE}.document.main+xml"/>` +
        `<Override PartName="/word/comments.xml" ContentType="${WORD_TYPE}.comments+xml"/>` +
        `<Override PartName="/word/settings.xml" ContentType="${WORD_TYPE}.settings+xml"/></Types>`,
    },
    {
      name: '_rels/.rels',
      data: `<?xml version="1.0"?><Relationships xmlns="${RELATIONSHIPS}"><Relationship Id="rId1" Type="${OFFICE_RELATIONSHIPS}/officeDocument" Target="word/document.xml"/></Relationships>`,
    },
    {
      name: 'word/_rels/document.xml.rels',
      data: `<?xml version="1.0"?><Relationships xmlns="${RELATIONSHIPS}">${relationships}</Relationships>`,
    },
    {
      name: 'word/document.xml',
      data: `<?xml version="1.0"?><w:document xmlns:w="${W}"><w:body>${body}</w:body></w:document>`,
    },
    {
      name: 'word/comments.xml',
      data:
        `<?xml version="1.0"?><w:comments xmlns:w="${W}"><w:comment w:id="0" w:author="Reviewer" w:initials="R">` +
        `<w:p><w:r><w:t>${escapeXml(spec.comment)}</w:t></w:r></w:p></w:comment></w:comments>`,
    },
    {
      name: 'word/settings.xml',
      data: `<?xml version="1.0"?><w:settings xmlns:w="${W}">${spec.trackChanges ? '<w:trackRevisions/>' : ''}</w:settings>`,
    },
  ]);
}

const ODF_NAMESPACES = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:dc="http://purl.org/dc/elements/1.1/"',
].join(' ');

/** An OpenDocument text whose first paragraph carries one annotation (`office:annotation`). */
export function makeCommentedOdt(spec: CommentedDocumentSpec): Uint8Array {
  const paragraphs = spec.paragraphs.map((text, index) => {
    const annotation =
      index === 0
        ? `<office:annotation><dc:creator>Reviewer</dc:creator><text:p>${escapeXml(spec.comment)}</text:p></office:annotation>`
        : '';
    return `<text:p>${annotation}${escapeXml(text)}</text:p>`;
  });
  const tracking = spec.trackChanges ? '<text:tracked-changes text:track-changes="true"/>' : '';
  const mediaType = 'application/vnd.oasis.opendocument.text';
  return makeZip([
    { name: 'mimetype', data: mediaType, method: 'store' },
    {
      name: 'META-INF/manifest.xml',
      data:
        '<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">' +
        `<manifest:file-entry manifest:full-path="/" manifest:media-type="${mediaType}"/>` +
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>',
    },
    {
      name: 'content.xml',
      data: `<?xml version="1.0"?><office:document-content ${ODF_NAMESPACES} office:version="1.2"><office:body><office:text>${tracking}${paragraphs.join('')}</office:text></office:body></office:document-content>`,
    },
  ]);
}
