export { diffOutputs, failures, unitOf } from './compare';
export type {
  CompositionChange,
  DiffFailOn,
  DiffOptions,
  DiffReport,
  FieldChange,
  OverrideChange,
  UnitDiff,
  ValueChange,
} from './compare';
export { compositionFigures, describeSteps } from './composition';
export { formatDiffJson, formatDiffMarkdown, formatDiffText } from './format';
export type { DiffFormat, MarkdownOptions } from './format';
export { runDiff } from './command';
export type { RunDiffOptions } from './command';
export { changedFiles, defaultBaseRevision, DiffInputError, resolveSide, workingTreeSide } from './sources';
export type { ChangedFile, DiffSide } from './sources';
