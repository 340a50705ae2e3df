/** The self-hosted container emulations: colour correction and background removal. */
export { createContainerServer, EMULATED_SDK_VERSION, type ContainerServer } from './server';
export type { ContainerCorrectionRecord } from './routes';
export { containerOptionsFromEnv, logLevelOf, type ContainerServerOptions } from './options';
export { correctContainerImage, CLIPART_ENTROPY_BITS, type ContainerImageContext, type ContainerImageResult } from './correct';
export type { InjectableFault } from './files';
export { startSelfHosted, type SelfHostedEmulation, type SelfHostedStartOptions } from './start';
export { selfHostedFlags, selfHostedHelp, selfHostedOptionsFrom } from './cli';
export { createBgrServer, EMULATED_MODEL_VERSION, type BgrServer, type BgrServerOptions } from '../bgr/server';
export { cutOut, heuristicMask, type CutOut, type CutOutOptions } from '../bgr/mask';
