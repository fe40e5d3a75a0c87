/** Sizes the page draws the chart with; the layout reserves the same. Shared by the server and the page. */
export const METRICS = {
  nodeHeight: 32,
  invokeHeight: 44,
  nodeMinWidth: 76,
  nodeCharWidth: 7.4,
  labelCharWidth: 6.1,
  labelLineHeight: 13,
  compoundHeader: 28,
  maxLabelLines: 3,
} as const;
