// Generated from verifier/src/json.rs: every type of this folder, in one import.
export type * from './Clocks';
export type * from './CompactReplay';
export type * from './FaultJson';
export type * from './FaultKind';
export type * from './Frame';
export type * from './KeyJson';
export type * from './MatchRole';
export type * from './OutcomeJson';
export type * from './Replay';
export type * from './Sanction';
export type * from './Status';
export type * from './Step';
export type * from './VerdictJson';
export type * from './Void';
