import { join } from 'node:path';
import ts from 'typescript';
import { docsDir, type CodeBlock } from './markdown-samples';

const root = join(__dirname, '..', '..');

/** Samples import the package by its name; here that name is the source tree. */
const compilerOptions: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts'],
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  strict: true,
  esModuleInterop: true,
  skipLibCheck: true,
  noEmit: true,
  types: ['node'],
  typeRoots: [join(root, 'node_modules', '@types')],
  baseUrl: root,
  paths: { 'sql-resources': ['src/index.ts'] },
};

/** What application code sees as `$app` (the host sets it globally for `server.lib` code). */
const globalsFile = join(docsDir, '__sample-globals.d.ts');
const globalsText = "declare const $app: import('sql-resources').App;\n";

export interface CompiledSample {
  block: CodeBlock;
  fileName: string;
  /** A module whose default export runs the sample's statements. */
  source: string;
  /** Generated line → line of the page, for diagnostics. */
  pageLine(generatedLine: number): number;
}

const countLines = (text: string): number => text.split('\n').length - 1;

/** Leading imports stay at module level; the rest becomes the body of an async function. */
export function wrapSample(block: CodeBlock, name: string): CompiledSample {
  const parsed = ts.createSourceFile('sample.ts', block.code, ts.ScriptTarget.ES2022, true);
  let prefixEnd = 0;
  let seenCode = false;
  for (const statement of parsed.statements) {
    if (ts.isImportDeclaration(statement)) {
      if (seenCode) throw new Error(`${block.page}:${block.line}: put the imports of sample '${name}' first`);
      prefixEnd = statement.end;
    } else {
      seenCode = true;
    }
  }
  const prefix = block.code.slice(0, prefixEnd);
  const rest = block.code.slice(prefixEnd).replace(/^\n/, '');
  const head = `${prefix}\nexport default async function __sample(): Promise<void> {\n`;
  const restFirstLine = prefix === '' ? 0 : countLines(prefix) + 1;
  const offset = countLines(head) - restFirstLine;
  return {
    block,
    fileName: join(docsDir, `${block.page}.${name}.sample.ts`),
    source: `${head}${rest}\n}\n`,
    pageLine: (line) => block.line + (line < countLines(head) ? line : line - offset),
  };
}

/** Type-checks every sample against the real declarations; answers one message per problem. */
export function typeCheck(samples: CompiledSample[]): Map<CompiledSample, string[]> {
  const byFile = new Map(samples.map((sample) => [sample.fileName, sample]));
  const host = ts.createCompilerHost(compilerOptions);
  const virtual = (fileName: string): string | undefined => (fileName === globalsFile ? globalsText : byFile.get(fileName)?.source);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (fileName, language, ...more) => {
    const text = virtual(fileName);
    return text === undefined ? getSourceFile.call(host, fileName, language, ...more) : ts.createSourceFile(fileName, text, language);
  };
  host.fileExists = (fileName) => virtual(fileName) !== undefined || fileExists.call(host, fileName);
  host.readFile = (fileName) => virtual(fileName) ?? readFile.call(host, fileName);
  const program = ts.createProgram([globalsFile, ...byFile.keys()], compilerOptions, host);
  const problems = new Map<CompiledSample, string[]>(samples.map((sample) => [sample, []]));
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (!diagnostic.file) {
      for (const list of problems.values()) list.push(`program: ${text}`);
      continue;
    }
    // Problems inside src/ are the type-check's business (npm run typecheck), not the docs'.
    const sample = byFile.get(diagnostic.file.fileName);
    if (!sample || diagnostic.start === undefined) continue;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    problems.get(sample)?.push(`${sample.block.page}:${sample.pageLine(line)}: ${text}`);
  }
  return problems;
}

export function transpile(sample: CompiledSample): string {
  return ts.transpileModule(sample.source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    fileName: sample.fileName,
  }).outputText;
}
