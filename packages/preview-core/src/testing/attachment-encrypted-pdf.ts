import { execFile } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFArray, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFString, StandardFonts } from 'pdf-lib';

const run = promisify(execFile);

/** The values of an AES-256 (V 5, R 6) standard security handler and the file key they protect. */
interface StandardSecurity {
  readonly entries: Readonly<Record<'O' | 'U' | 'OE' | 'UE' | 'Perms', string>>;
  readonly permissions: number;
  readonly fileKey: Buffer;
}

function hexEntry(dictionary: string, key: string): string {
  const match = new RegExp(`/${key} <([0-9a-fA-F]+)>`).exec(dictionary);
  if (!match?.[1]) throw new Error(`qpdf wrote no /${key} hex string in its encryption dictionary`);
  return match[1];
}

/**
 * Lets qpdf make a real AES-256 security handler for `userPassword`: it encrypts a blank PDF, then
 * tells the file key. With R 6 the values do not depend on the file, so they fit any document.
 */
async function standardSecurity(folder: string, userPassword: string): Promise<StandardSecurity> {
  const blank = await PDFDocument.create();
  blank.addPage([100, 100]);
  const plain = join(folder, 'blank.pdf');
  const encrypted = join(folder, 'encrypted.pdf');
  await writeFile(plain, await blank.save({ useObjectStreams: false }));
  const encrypt = ['--encrypt', userPassword, `${userPassword}-owner`, '256', '--'];
  await run('qpdf', ['--object-streams=disable', ...encrypt, plain, encrypted], { timeout: 30_000 });
  // qpdf writes the encryption dictionary as plain text with hex strings, outside any object stream.
  const dictionary = await readFile(encrypted, 'latin1');
  const { stdout: shown } = await run(
    'qpdf',
    ['--show-encryption-key', '--show-encryption', `--password=${userPassword}`, encrypted],
    { timeout: 30_000 },
  );
  const key = /Encryption key = ([0-9a-f]{64})/.exec(shown)?.[1];
  const permissions = /\/P (-?\d+)/.exec(dictionary)?.[1];
  if (!key || !permissions) throw new Error('qpdf did not show the file key or the permissions');
  const entries = {
    O: hexEntry(dictionary, 'O'),
    U: hexEntry(dictionary, 'U'),
    OE: hexEntry(dictionary, 'OE'),
    UE: hexEntry(dictionary, 'UE'),
    Perms: hexEntry(dictionary, 'Perms'),
  };
  return { entries, permissions: Number(permissions), fileKey: Buffer.from(key, 'hex') };
}

/** AESV3 stream encryption: a random 16-byte IV, then AES-256-CBC with PKCS#7 padding. */
function aesV3(fileKey: Buffer, plain: Uint8Array): Buffer {
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', fileKey, iv);
  return Buffer.concat([iv, cipher.update(plain), cipher.final()]);
}

/**
 * A PDF of `pageCount` pages reading "Page n" whose `/Encrypt` dictionary covers embedded files only
 * (`/AuthEvent /EFOpen`, `/StmF` and `/StrF` `/Identity`, `/EFF /StdCF`), as some desktop tools save
 * "encrypt attachments only": the pages open without a password, the attachment `note.txt` (content
 * `attachment`) needs `userPassword`. qpdf 11 cannot write this variant, so qpdf makes the security
 * handler and the key, and pdf-lib writes the rest; `qpdf --password=<userPassword>
 * --show-attachment=note.txt` reads the attachment back.
 * @throws Error when qpdf is not installed (`scripts/install-system-deps.sh` installs it).
 */
export async function makeAttachmentEncryptedPdf(
  pageCount: number,
  userPassword: string,
): Promise<Uint8Array> {
  const folder = await mkdtemp(join(tmpdir(), 'attachment-encrypted-'));
  try {
    const security = await standardSecurity(folder, userPassword);
    const document = await PDFDocument.create({ updateMetadata: false });
    const font = await document.embedFont(StandardFonts.Helvetica);
    for (let index = 1; index <= pageCount; index += 1) {
      document.addPage([595, 842]).drawText(`Page ${index}`, { x: 10, y: 800, size: 24, font });
    }
    const { context } = document;
    const contents = aesV3(security.fileKey, new TextEncoder().encode('attachment'));
    const embedded = context.register(context.stream(contents, { Type: 'EmbeddedFile' }));
    const fileSpec = context.register(
      context.obj({
        Type: 'Filespec',
        F: PDFString.of('note.txt'),
        UF: PDFString.of('note.txt'),
        EF: { F: embedded },
      }),
    );
    const names = context.obj({ EmbeddedFiles: { Names: [PDFString.of('note.txt'), fileSpec] } });
    document.catalog.set(PDFName.of('Names'), names);
    const filter = context.obj({ CFM: 'AESV3', AuthEvent: 'EFOpen', Length: 32 });
    const encrypt = context.obj({
      Filter: 'Standard',
      V: 5,
      R: 6,
      Length: 256,
      P: PDFNumber.of(security.permissions),
      CF: { StdCF: filter },
      StmF: 'Identity',
      StrF: 'Identity',
      EFF: 'StdCF',
    });
    for (const [key, hex] of Object.entries(security.entries))
      encrypt.set(PDFName.of(key), PDFHexString.of(hex));
    context.trailerInfo.Encrypt = context.register(encrypt);
    const id = PDFHexString.of(randomBytes(16).toString('hex'));
    context.trailerInfo.ID = PDFArray.withContext(context);
    (context.trailerInfo.ID as PDFArray).push(id);
    (context.trailerInfo.ID as PDFArray).push(id);
    return await document.save({ useObjectStreams: false });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
