export * from './prometheus';
export * from './queries';
export * from './series';
export * from './measure';
export * from './measurements';
export * from './verify';
export { runMeasureCli, runVerifyCli, formatMeasurements, parseTime, parseWindow } from './command';
